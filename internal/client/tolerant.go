package client

import (
	"bytes"
	"encoding/json"
	"time"
)

// object reads a JSON object field by field, so that a field of an
// unexpected type costs that field alone, never the answer: the answer to a
// call that started something must hand over the id whatever else it
// carries. Each field read that had a value of the wrong type or form is
// left out and named in bad (as the API spells it, with its parent's name:
// "source", "author.githubUserId"); absent and null fields are alike and
// named nowhere.
type object struct {
	fields map[string]json.RawMessage
	prefix string
	bad    *[]string
}

// readObject reads data as a JSON object; anything else (an array, a
// string, invalid JSON) is an error, as the answer is not one of the API's.
func readObject(data []byte) (object, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return object{}, err
	}
	return object{fields: fields, bad: new([]string)}, nil
}

// malformed is the list of fields left out, nil when none was.
func (o object) malformed() []string {
	if len(*o.bad) == 0 {
		return nil
	}
	return *o.bad
}

func (o object) note(name string) { *o.bad = append(*o.bad, o.prefix+name) }

// value is the field's raw value; false when absent or null.
func (o object) value(name string) (json.RawMessage, bool) {
	raw, ok := o.fields[name]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, false
	}
	return raw, true
}

// decode reads the field into dst; a value of another type is noted.
func decode[T any](o object, name string) (T, bool) {
	var v T
	raw, ok := o.value(name)
	if !ok {
		return v, false
	}
	if json.Unmarshal(raw, &v) != nil {
		o.note(name)
		return v, false
	}
	return v, true
}

// str reads a string field; nil when absent, null or of another type.
func (o object) str(name string) *string {
	if s, ok := decode[string](o, name); ok {
		return &s
	}
	return nil
}

// text reads a string field; "" when absent, null or of another type.
func (o object) text(name string) string {
	if s := o.str(name); s != nil {
		return *s
	}
	return ""
}

// id reads an identifier, a string or a number.
func (o object) id(name string) string {
	raw, ok := o.value(name)
	if !ok {
		return ""
	}
	if s := scalarText(raw); s != nil {
		return *s
	}
	o.note(name)
	return ""
}

// idText is id as a pointer, nil when absent.
func (o object) idText(name string) *string {
	if s := o.id(name); s != "" {
		return &s
	}
	return nil
}

// number reads a number field.
func (o object) number(name string) *float64 {
	if f, ok := decode[float64](o, name); ok {
		return &f
	}
	return nil
}

// time reads an RFC 3339 timestamp; an empty string is absent, a string
// that is not one is noted.
func (o object) time(name string) *time.Time {
	s := o.str(name)
	if s == nil || *s == "" {
		return nil
	}
	t := parseTime(s)
	if t == nil {
		o.note(name)
	}
	return t
}

// child reads an object field; false when absent, null or not an object.
func (o object) child(name string) (object, bool) {
	fields, ok := decode[map[string]json.RawMessage](o, name)
	if !ok {
		return object{}, false
	}
	return object{fields: fields, prefix: o.prefix + name + ".", bad: o.bad}, true
}

// strings reads an array of strings, dropping (and noting) entries that
// are not strings; nil when the field is absent, null or not an array.
func (o object) strings(name string) (list []string) {
	items, ok := decode[[]json.RawMessage](o, name)
	if !ok {
		return nil
	}
	dropped := false
	for _, item := range items {
		var s *string
		if json.Unmarshal(item, &s) == nil && s != nil {
			list = append(list, *s)
		} else {
			dropped = true
		}
	}
	if dropped {
		o.note(name)
	}
	return list
}
