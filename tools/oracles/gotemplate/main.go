// Command gotemplate is the differential-testing oracle for certgate-gotemplate and
// certgate-sprig: Go's own text/template (the stdlib of the Go that builds it) with
// Masterminds/sprig v3.3.0's TxtFuncMap, the sprig version stolostron/go-template-utils v7 pins.
// One JSON case per line:
//
//	{"template":"...","data":<JSON>,"funcs":"sprig"|"none","numbers":"float64"|"typed",
//	 "options":["missingkey=..."]}
//	  -> {"output":"..."} | {"error":"...","phase":"parse"|"exec"}
//
// "numbers" chooses how JSON numbers reach the template: "float64" is encoding/json's plain
// decoding (every number a float64); "typed" is what certgate-gotemplate's to_value feeds
// (integers that fit int64 become int, larger ones uint64, the rest float64), so both
// conventions can be compared.
package main

import (
	"bytes"
	"certgate.dev/tools/oracles/lineproto"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	sprig "github.com/Masterminds/sprig/v3"
)

// Excluded sprig functions: their results depend on the clock, randomness, the environment
// or the network, so two implementations cannot be compared case by case. The differential
// test lists the same names.
var excluded = []string{
	"now", "date", "dateInZone", "date_in_zone", "ago", "htmlDate", "htmlDateInZone",
	"dateModify", "date_modify", "mustDateModify", "toDate", "mustToDate", "unixEpoch",
	"duration", "durationRound",
	"randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt",
	"uuidv4", "genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert",
	"genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey", "derivePassword",
	"bcrypt", "htpasswd", "encryptAES", "decryptAES", "shuffle",
	"getHostByName", "env", "expandenv",
}

func sprigFuncs() template.FuncMap {
	fm := sprig.TxtFuncMap()
	for _, name := range excluded {
		delete(fm, name)
	}
	return fm
}

var withSprig = sprigFuncs()

type request struct {
	Template string          `json:"template"`
	Data     json.RawMessage `json:"data"`
	Funcs    string          `json:"funcs"`
	Numbers  string          `json:"numbers"`
	Options  []string        `json:"options"`
}

type answer struct {
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
	Phase  string  `json:"phase,omitempty"`
	Panic  string  `json:"panic,omitempty"`
}

// typed turns json.Number leaves into int / uint64 / float64 as certgate's to_value does.
func typed(v interface{}) interface{} {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return int(i)
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return u
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []interface{}:
		for i := range x {
			x[i] = typed(x[i])
		}
	case map[string]interface{}:
		for k := range x {
			x[k] = typed(x[k])
		}
	}
	return v
}

func decode(req request) (interface{}, error) {
	if len(bytes.TrimSpace(req.Data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(req.Data))
	if req.Numbers == "typed" {
		dec.UseNumber()
	}
	var data interface{}
	if err := dec.Decode(&data); err != nil {
		return nil, err
	}
	if req.Numbers == "typed" {
		data = typed(data)
	}
	return data, nil
}

func run(req request) answer {
	tmpl := template.New("t")
	if req.Funcs == "sprig" {
		tmpl = tmpl.Funcs(withSprig)
	}
	if len(req.Options) > 0 {
		tmpl = tmpl.Option(req.Options...)
	}
	data, err := decode(req)
	if err != nil {
		text := "oracle: bad data: " + err.Error()
		return answer{Error: &text, Phase: "data"}
	}
	if tmpl, err = tmpl.Parse(req.Template); err != nil {
		text := err.Error()
		return answer{Error: &text, Phase: "parse"}
	}
	var out strings.Builder
	if err := tmpl.Execute(&out, data); err != nil {
		text := err.Error()
		return answer{Error: &text, Phase: "exec"}
	}
	text := out.String()
	return answer{Output: &text}
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
		text := "oracle: bad request: " + err.Error()
		return answer{Error: &text, Phase: "request"}
	}
	return run(req)
}

func main() {
	lineproto.Serve("gotemplate", func(line []byte) any { return answerOne(line) })
}
