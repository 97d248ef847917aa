// Package terminal is the controlling terminal of nika's consent doors:
// the consent reader, the pager, the colour decision and the escaper's
// terminal side.
//
// The controlling terminal is where consent is formed, so it is part of the
// security boundary (DESIGN.md, laws 5 and 9). Every terminal door reads
// through this one reader: nika apply's consent prompt, the session's
// consent and gate prompts, and the session's input line.
//
// How an answer is read:
//
//   - The terminal is put in non-canonical mode without echo, with
//     TCSETSF (TIOCSETAF on the BSDs and macOS), which discards every byte
//     typed ahead; nika echoes what is typed itself, escaped, and does the
//     line editing (backspace, Ctrl-U).
//   - Bracketed paste is turned on (ESC[?2004h) while a line is read and
//     off again after, so a terminal that supports it wraps a paste in
//     ESC[200~ … ESC[201~.
//   - A line is pasted when any of its characters arrived inside those
//     brackets, or when it arrived in a burst: more than one character in
//     one read from the terminal. A person's keystrokes arrive one read
//     each; a paste, or a program writing to the terminal, arrives many at a
//     time. A pasted line never answers a consent or a gate: the human is
//     told to type it, and asked again.
//   - The session's input line is the other way round: a paste is one input
//     (a reply, a patch, a question), whatever lines it holds, and so is a
//     burst of lines that arrive less than BurstGap apart. What the human
//     typed ahead of that prompt is kept: only answers discard it.
//
// What this cannot stop: a process of the same user with a pseudo-terminal
// of its own can type at nika's prompt one key at a time (SECURITY.md).
//
// What a consent door needs, and all this package offers:
//
//   - Open, the controlling terminal (never stdin, never a flag), and on it
//     Answer (a consent or a gate's answer: typed after the prompt, never
//     pasted) and Input (the session's next input: a typed line or a whole
//     paste); ErrNoAnswer when the human ends or interrupts the input.
//   - Pager and Page, the pager chosen and run as git does, for a preview
//     taller than the terminal.
//   - Color, whether a stream gets colour (--color, NIKA_COLOR, color.ui,
//     NO_COLOR, a terminal), and IsTerminal.
//   - EscapingWriter, the one escaper (preview.EscapeText) on the way to a
//     terminal, for output that came from outside nika (a runner, a hook).
//
// Every system call is in a file per system: termios and the window size
// in the _unix.go files (with the ioctl numbers of Linux and of the BSDs in
// termios_linux.go and termios_bsd.go). On Windows, Open refuses, naming
// what is missing (tty_windows.go): reading consent from a Windows console
// is not built yet.
package terminal
