// Command fielderrors is the differential-testing oracle for certgate-api's field module: it
// renders field.Error values with k8s.io/apimachinery (the version approver-policy pins), one
// JSON case per line.
//
//	{"errors":[{"type":"NotSupported","path":[{"child":"spec"},{"index":1},{"key":"a.b"}],
//	  "goType":"string","value":"x","detail":"","supported":["a"],"max":0,"actual":0}]}
//	-> {"errors":["<Error()>",...],"bodies":["<ErrorBody()>",...],"aggregate":"<ToAggregate().Error()>"}
//
// The rendering of a bad value depends on its Go type, which JSON cannot carry, so each
// error names it in goType: string, bool, int64, int32, float64, int (all from the JSON
// value), json (the value as Kubernetes' unstructured decoding holds it: maps, slices,
// int64 for integral numbers, float64 otherwise), nil (an untyped nil).

package main

import (
	"bytes"
	"certgate.dev/tools/oracles/lineproto"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

type step struct {
	Child *string `json:"child"`
	Index *int    `json:"index"`
	Key   *string `json:"key"`
}

type spec struct {
	Type      string          `json:"type"`
	Path      []step          `json:"path"`
	GoType    string          `json:"goType"`
	Value     json.RawMessage `json:"value"`
	Detail    string          `json:"detail"`
	Supported []string        `json:"supported"`
	Max       int             `json:"max"`
	Actual    int             `json:"actual"`
}

type request struct {
	Errors []spec `json:"errors"`
}

type answer struct {
	Errors    []string `json:"errors,omitempty"`
	Bodies    []string `json:"bodies,omitempty"`
	Aggregate string   `json:"aggregate,omitempty"`
	Panic     string   `json:"panic,omitempty"`
}

// path builds the path the way validation code does: NewPath for the first child, then
// Child, Index and Key; a path that starts with a subscript hangs it off NewPath("").
func path(steps []step) *field.Path {
	var p *field.Path
	for _, s := range steps {
		switch {
		case s.Child != nil && p == nil:
			p = field.NewPath(*s.Child)
		case s.Child != nil:
			p = p.Child(*s.Child)
		case p == nil:
			p = field.NewPath("")
			fallthrough
		default:
			if s.Index != nil {
				p = p.Index(*s.Index)
			} else if s.Key != nil {
				p = p.Key(*s.Key)
			}
		}
	}
	return p
}

// value turns the JSON value into a Go value of the requested type, since the type decides
// the rendering (%q, %v or JSON).
func value(s spec) (interface{}, error) {
	var decoded interface{}
	if len(s.Value) > 0 {
		if err := json.Unmarshal(s.Value, &decoded); err != nil {
			return nil, err
		}
	}
	switch s.GoType {
	case "string":
		v, _ := decoded.(string)
		return v, nil
	case "bool":
		v, _ := decoded.(bool)
		return v, nil
	case "int64":
		v, _ := decoded.(float64)
		var i int64
		err := json.Unmarshal(s.Value, &i)
		if err != nil {
			i = int64(v)
		}
		return i, nil
	case "int32":
		var i int32
		err := json.Unmarshal(s.Value, &i)
		return i, err
	case "int":
		var i int
		err := json.Unmarshal(s.Value, &i)
		return i, err
	case "float64":
		v, _ := decoded.(float64)
		return v, nil
	case "json":
		return unstructured(s.Value)

	case "nil", "":
		// "" for the types that take no value (Required, TooMany, ...).
		return nil, nil
	}
	return nil, fmt.Errorf("unknown goType %q", s.GoType)
}

// unstructured decodes JSON as the API server holds a custom resource's values: integral
// numbers stay int64 (plain interface{} decoding would round them through float64).
func unstructured(raw json.RawMessage) (interface{}, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return convert(v), nil
}

func convert(v interface{}) interface{} {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []interface{}:
		for i := range t {
			t[i] = convert(t[i])
		}
	case map[string]interface{}:
		for k := range t {
			t[k] = convert(t[k])
		}
	}
	return v
}

func build(s spec) (*field.Error, error) {
	p := path(s.Path)
	v, err := value(s)
	if err != nil {
		return nil, err
	}
	switch s.Type {
	case "Invalid":
		return field.Invalid(p, v, s.Detail), nil
	case "Required":
		return field.Required(p, s.Detail), nil
	case "Forbidden":
		return field.Forbidden(p, s.Detail), nil
	case "NotSupported":
		return field.NotSupported(p, v, s.Supported), nil
	case "Duplicate":
		return field.Duplicate(p, v), nil
	case "NotFound":
		return field.NotFound(p, v), nil
	case "TooLong":
		return field.TooLong(p, v, s.Max), nil
	case "TooMany":
		return field.TooMany(p, s.Actual, s.Max), nil
	case "Internal":
		return field.InternalError(p, fmt.Errorf("%s", s.Detail)), nil
	}
	return nil, fmt.Errorf("unknown type %q", s.Type)
}

// answerOne never lets a case crash the process: the test needs an answer for every case.
func answerOne(line []byte) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Panic: fmt.Sprint(r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Panic: "bad request: " + err.Error()}
	}
	var list field.ErrorList
	for _, s := range req.Errors {
		e, err := build(s)
		if err != nil {
			return answer{Panic: "bad error spec: " + err.Error()}
		}
		list = append(list, e)
		a.Errors = append(a.Errors, e.Error())
		a.Bodies = append(a.Bodies, e.ErrorBody())
	}
	if agg := list.ToAggregate(); agg != nil {
		a.Aggregate = agg.Error()
	}
	return a
}

func main() {
	lineproto.Serve("fielderrors", func(line []byte) any { return answerOne(line) })
}
