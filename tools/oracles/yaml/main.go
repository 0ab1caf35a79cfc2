// Command yaml is the differential-testing oracle for certgate-goyaml: it answers with what
// gopkg.in/yaml.v3 (the version go-template-utils v7 pins) does, one JSON case per line.
//
//	{"op":"decode","yaml":"..."}          -> {"json":<value>,"go":"%#v"} | {"error":"..."}
//	{"op":"encode","json":<value>,"indent":2} -> {"yaml":"..."} | {"error":"..."}
//
// decode mirrors go-template-utils' yamlToJSON: yaml.Unmarshal into interface{}, then
// json.Marshal. certgate's from_yaml returns that JSON value, so "json" is what is compared;
// "go" (Go syntax of the decoded value, types included: int vs float64, time.Time,
// map[interface{}]interface{}) is there for reading a mismatch, since json.Marshal erases
// those types or fails on them. A json.Marshal failure is an "error" like a YAML one.
//
// encode mirrors go-template-utils' JSONToYAML: yaml.Unmarshal of the JSON text (so
// numbers become int or float64 the YAML way), then an Encoder with SetIndent.
package main

import (
	"bytes"
	"certgate.dev/tools/oracles/lineproto"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

type request struct {
	Op     string          `json:"op"`
	YAML   string          `json:"yaml"`
	JSON   json.RawMessage `json:"json"`
	Indent int             `json:"indent"`
}

type answer struct {
	JSON  json.RawMessage `json:"json,omitempty"`
	Go    string          `json:"go,omitempty"`
	YAML  *string         `json:"yaml,omitempty"`
	Error *string         `json:"error,omitempty"`
	Panic string          `json:"panic,omitempty"`
}

func fail(err error) answer {
	text := err.Error()
	return answer{Error: &text}
}

func decode(text string) answer {
	var value interface{}
	if err := yaml.Unmarshal([]byte(text), &value); err != nil {
		return fail(err)
	}
	out, err := json.Marshal(value)
	if err != nil {
		return fail(err)
	}
	return answer{JSON: out, Go: fmt.Sprintf("%#v", value)}
}

func encode(raw json.RawMessage, indent int) answer {
	var value interface{}
	if err := yaml.Unmarshal(raw, &value); err != nil {
		return fail(err)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(indent)
	// go-template-utils encodes a pointer to the interface{}; the output is the same.
	if err := enc.Encode(&value); err != nil {
		return fail(err)
	}
	if err := enc.Close(); err != nil {
		return fail(err)
	}
	text := b.String()
	return answer{YAML: &text}
}

// answerOne never lets a case crash the process: yaml.v3 panics on some inputs (and
// SetIndent panics below 0), and the test needs an answer for every case.
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
	switch req.Op {
	case "decode":
		return decode(req.YAML)
	case "encode":
		return encode(req.JSON, req.Indent)
	}
	return answer{Panic: "unknown op " + req.Op}
}

func main() {
	lineproto.Serve("yaml", func(line []byte) any { return answerOne(line) })
}
