package repl

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/minikafka-lab/minikafka/engine/topic"
)

// object is a JSON object that keeps its field order.
type object []field

type field struct {
	name  string
	value any
}

// MarshalJSON encodes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.name)
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// plainJSON turns an engine value (an event, a report) into JSON with the
// spec's snake_case names: struct fields become snake_case keys in order,
// embedded structs are flattened, a topic-partition becomes "topic" and
// "partition" (or "orders-0" inside a list), byte slices become base64, and
// error codes strings.
func plainJSON(v any) any {
	return jsonOf(reflect.ValueOf(v))
}

var tpType = reflect.TypeOf(topic.Partition{})

func jsonOf(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return jsonOf(v.Elem())
	case reflect.Struct:
		if v.Type() == tpType {
			return v.Interface().(topic.Partition).String()
		}
		var o object
		addStructFields(&o, v)
		return o
	case reflect.Slice:
		if v.IsNil() {
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return nil
			}
			return []any{}
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = jsonOf(v.Index(i))
		}
		return out
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if s, ok := v.Interface().(fmt.Stringer); ok && v.Type().PkgPath() != "" {
			return s.String()
		}
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if s, ok := v.Interface().(fmt.Stringer); ok && v.Type().PkgPath() != "" {
			return s.String()
		}
		return v.Uint()
	}
	return fmt.Sprint(v.Interface())
}

func addStructFields(o *object, v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if f.Anonymous && fv.Kind() == reflect.Struct && f.Type != tpType {
			addStructFields(o, fv)
			continue
		}
		if f.Type == tpType {
			tp := fv.Interface().(topic.Partition)
			*o = append(*o, field{"topic", tp.Topic}, field{"partition", tp.Partition})
			continue
		}
		*o = append(*o, field{snakeCase(f.Name), jsonOf(fv)})
	}
}

// snakeExceptions are names whose acronyms the generic rule would split.
var snakeExceptions = map[string]string{"IDs": "ids", "PIDs": "pids"}

// snakeCase turns a Go field name into the spec's JSON name: LastFetchMs →
// last_fetch_ms, HWFrom → hw_from, LEO → leo, AckID → ack_id.
func snakeCase(name string) string {
	if s, ok := snakeExceptions[name]; ok {
		return s
	}
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
