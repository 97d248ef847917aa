package main

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestJSONDocumented keeps docs/json.md in step with the typed shapes the
// verbs print (jsonShapes): every field a shape can print is documented in
// its type's table, and every documented field exists. A field documented
// as an object of a named kind ("object verdict", "[]object change") has
// its own fields in that object's table; a map's entries are not listed.
func TestJSONDocumented(t *testing.T) {
	doc := readJSONDoc(t, "../../docs/json.md")
	for name, v := range jsonShapes() {
		got := jsonKeys(t, v)
		table, ok := doc.types[name]
		if !ok {
			t.Errorf("docs/json.md has no section for the type %q (### `%s`)", name, name)
			continue
		}
		want := doc.expand(t, name, table)
		for _, k := range got {
			if !want[k] && !doc.underMap(k, want) {
				t.Errorf("%s: the field %s is printed but not documented", name, k)
			}
		}
		gotSet := map[string]bool{}
		for _, k := range got {
			gotSet[k] = true
		}
		for k := range want {
			if !gotSet[k] && !strings.HasSuffix(k, ".*") {
				t.Errorf("%s: docs/json.md documents %s, which no output has", name, k)
			}
		}
	}
	for name := range doc.types {
		if _, ok := jsonShapes()[name]; !ok {
			t.Errorf("docs/json.md documents the type %q, which no verb prints", name)
		}
	}
}

type docRow struct{ field, kind string }

type jsonDoc struct {
	types   map[string][]docRow // ### `name`
	objects map[string][]docRow // ### object `name`
	maps    map[string]bool     // full paths documented as maps
}

var (
	typeHeading   = regexp.MustCompile("^#{2,4} `([a-z_]+)`")
	objectHeading = regexp.MustCompile("^#{2,4} object `([a-z_]+)`")
	docRowRE      = regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]+) \\|")
)

func readJSONDoc(t *testing.T, path string) *jsonDoc {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := &jsonDoc{types: map[string][]docRow{}, objects: map[string][]docRow{}, maps: map[string]bool{}}
	var into map[string][]docRow // types or objects, for the section being read
	name := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch m, o := typeHeading.FindStringSubmatch(line), objectHeading.FindStringSubmatch(line); {
		case o != nil:
			into, name = d.objects, o[1]
			into[name] = []docRow{}
			continue
		case m != nil:
			into, name = d.types, m[1]
			into[name] = []docRow{}
			continue
		case strings.HasPrefix(line, "#"):
			into = nil
			continue
		}
		if m := docRowRE.FindStringSubmatch(line); m != nil && into != nil {
			into[name] = append(into[name], docRow{m[1], strings.TrimSpace(m[2])})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return d
}

// expand turns a table into full key paths, following named objects.
func (d *jsonDoc) expand(t *testing.T, where string, rows []docRow) map[string]bool {
	out := map[string]bool{}
	var walk func(prefix string, rows []docRow, depth int)
	walk = func(prefix string, rows []docRow, depth int) {
		if depth > 8 {
			t.Fatalf("%s: documented objects nest too deep (a cycle?)", where)
		}
		for _, r := range rows {
			key := prefix + r.field
			out[key] = true
			kind := r.kind
			arr := strings.HasPrefix(kind, "[]")
			kind = strings.TrimPrefix(kind, "[]")
			switch {
			case strings.HasPrefix(kind, "object "):
				name := strings.Fields(strings.TrimPrefix(kind, "object "))[0]
				obj, ok := d.objects[name]
				if !ok {
					t.Errorf("%s: %s refers to object %q, which docs/json.md does not document", where, key, name)
					continue
				}
				p := key
				if arr {
					p += "[]"
				}
				walk(p+".", obj, depth+1)
			case strings.HasPrefix(kind, "map"):
				d.maps[key] = true
			}
		}
	}
	walk("", rows, 0)
	return out
}

// underMap reports a key inside a documented map.
func (d *jsonDoc) underMap(k string, want map[string]bool) bool {
	for m := range d.maps {
		if strings.HasPrefix(k, m+".") || strings.HasPrefix(k, m+"[]") {
			return true
		}
	}
	return false
}

// jsonKeys marshals a value of v's type with every field filled (one
// element in each slice, every pointer set) and lists the key paths of the
// JSON it prints: a.b for objects, a[].b for arrays.
func jsonKeys(t *testing.T, v any) []string {
	rv := reflect.New(reflect.TypeOf(v)).Elem()
	fill(rv, 0)
	b, err := json.Marshal(rv.Interface())
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch y := x.(type) {
		case map[string]any:
			for k, v := range y {
				key := prefix + k
				seen[key] = true
				walk(key+".", v)
			}
		case []any:
			p := strings.TrimSuffix(prefix, ".") + "[]."
			for _, v := range y {
				walk(p, v)
			}
		}
	}
	walk("", x)
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func fill(v reflect.Value, depth int) {
	if depth > 12 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth+1)
		m.SetMapIndex(reflect.ValueOf("*").Convert(v.Type().Key()), e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}
