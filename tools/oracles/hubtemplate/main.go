// Command hubtemplate is the differential-testing oracle for certgate-templates' offline hub
// template resolution. It answers with what go-template-utils v7's ResolveTemplate does for
// the governance-policy-propagator (delimiters {{hub / hub}}, AdditionalIndentation 8, no
// cluster), one JSON case per line:
//
//	{"template":"<raw JSON>","context":{...},"denylist":[...]}
//	  -> {"json":<value>} | {"error":"..."}, plus the intermediate texts reached: "yaml" (after
//	     JSON -> YAML), "text" (after the typed-value and autoindent rewrites) and "output" (the
//	     executed template), so a test can tell which stage a difference comes from.
//
// go-template-utils is not served by the module proxy here, so this is a RE-ASSEMBLY of its
// resolver from the same parts it pins (text/template, sprig v3.3.0, yaml.v3 v3.0.1, spf13/cast
// v1.10.0), following stolostron/go-template-utils at v7.3.0-13-gfdceb10 (commit
// fdceb1074d75f01e1fbc088385711cefc45d372d, pkg/templates/templates.go): function map order
// (custom, then sprig, protect stub, denylist stubs), JSON -> YAML with indent 2, the typed-value
// and autoindent rewrites, parse, execute, YAML -> JSON. Written independently from the
// behaviour described in ../shared/spec/ocm-hub-templates.md §7; no upstream code is copied.
//
// Cluster reads (fromSecret, lookup, ...) are not reproduced: the generator never uses them,
// and they are defined here only so a template that mentions one parses as it would upstream.
package main

import (
	"bytes"
	"certgate.dev/tools/oracles/lineproto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	sprig "github.com/Masterminds/sprig/v3"
	"github.com/spf13/cast"
	"gopkg.in/yaml.v3"
)

const (
	startDelim            = "{{hub"
	stopDelim             = "hub}}"
	additionalIndentation = 8
	yamlIndentation       = 2
)

// The propagator's template context; field names are what templates reference.
type hubContext struct {
	ManagedClusterName   string
	ManagedClusterLabels map[string]string
	PolicyMetadata       map[string]interface{}
}

type request struct {
	Template string          `json:"template"`
	Context  json.RawMessage `json:"context"`
	Denylist []string        `json:"denylist"`
}

type answer struct {
	YAML   *string         `json:"yaml,omitempty"`
	Text   *string         `json:"text,omitempty"`
	Output *string         `json:"output,omitempty"`
	JSON   json.RawMessage `json:"json,omitempty"`
	Error  *string         `json:"error,omitempty"`
	Panic  string          `json:"panic,omitempty"`
}

var sprigFuncs = sprig.FuncMap()

func errOffline(name string) func(...interface{}) (interface{}, error) {
	return func(...interface{}) (interface{}, error) {
		return nil, fmt.Errorf("%s needs a cluster; the oracle does not reproduce it", name)
	}
}

// toYAML: yaml.v3 with indent 2, final newline trimmed (upstream's known chomping issue
// follows from that trim, so it must be kept).
func toYAML(v interface{}) (str string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml marshal error: %v", r)
		}
	}()
	var data bytes.Buffer
	enc := yaml.NewEncoder(&data)
	enc.SetIndent(yamlIndentation)
	if err = enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(data.String(), "\n"), nil
}

func fromYAML(s string) (m interface{}, err error) {
	err = yaml.Unmarshal([]byte(s), &m)
	return m, err
}

func indent(spaces int, v string) string {
	pad := strings.Repeat(" ", spaces+additionalIndentation)
	return strings.TrimSpace("\n" + pad + strings.ReplaceAll(v, "\n", "\n"+pad))
}

func funcMap(denylist []string) template.FuncMap {
	fm := template.FuncMap{
		"base64enc": func(v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) },
		"base64dec": b64dec,
		"b64enc":    func(v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) },
		"b64dec":    b64dec,
		"autoindent": func(string) (string, error) {
			return "", errors.New("an unexpected error occurred where autoindent could not be processed")
		},
		"indent": indent,
		"atoi": func(a string) int {
			i, _ := strconv.Atoi(a)
			return i
		},
		"toInt": func(v interface{}) int { return cast.ToInt(v) },
		"toBool": func(a string) bool {
			b, _ := strconv.ParseBool(a)
			return b
		},
		"toLiteral": func(a string) (string, error) {
			if strings.Contains(a, "\n") {
				return "", errors.New("new lines are not allowed in the string passed to the toLiteral function")
			}
			return a, nil
		},
		"fromJSON":      sprigFuncs["fromJson"],
		"mustFromJSON":  sprigFuncs["mustFromJson"],
		"toJSON":        sprigFuncs["toJson"],
		"mustToJSON":    sprigFuncs["mustToJson"],
		"toRawJSON":     sprigFuncs["toRawJson"],
		"mustToRawJSON": sprigFuncs["mustToRawJson"],
		"fromYAML":      fromYAML,
		"toYAML":        toYAML,
		"fromYaml":      fromYAML,
		"toYaml":        toYAML,
	}
	for _, name := range []string{"copyConfigMapData", "copySecretData", "fromSecret", "fromConfigMap",
		"fromClusterClaim", "lookupClusterClaim", "getNodesWithExactRoles", "hasNodesWithExactRoles", "lookup"} {
		fm[name] = errOffline(name)
	}
	for name, f := range sprigFuncs {
		if _, ok := fm[name]; !ok {
			fm[name] = f
		}
	}
	fm["protect"] = func(string) (string, error) {
		return "", errors.New("the protect template function is not enabled in this mode")
	}
	for _, name := range append(append([]string{}, denylist...), "env", "expandenv") {
		name := name
		fm[name] = func(...interface{}) (interface{}, error) {
			if name == "env" || name == "expandenv" {
				return nil, fmt.Errorf("use of denylisted template function: function '%s' is considered a security risk", name)
			}
			return nil, fmt.Errorf("use of denylisted template function: function '%s' is not allowed", name)
		}
	}
	return fm
}

func b64dec(v string) string {
	data, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

var (
	d1        = regexp.QuoteMeta(startDelim)
	d2        = regexp.QuoteMeta(stopDelim)
	typedRe   = regexp.MustCompile(`:\s+(?:[\|>]-?\s+)?(?:'?\s*)(` + d1 + `-?(?:.*\|\s*(?:toInt|toBool|toLiteral)|(?:.*(?:copyConfigMapData|copySecretData))).*` + d2 + `)(?:\s*'?)`)
	autoindRe = regexp.MustCompile(`( *)(?:'|")?(` + d1 + `.*\| *autoindent *-?` + d2 + `)`)
)

func autoindentRewrite(s string) string {
	out := s
	for _, m := range autoindRe.FindAllStringSubmatch(s, -1) {
		n := len(m[1]) - additionalIndentation
		out = strings.Replace(out, m[2], strings.Replace(m[2], "autoindent", fmt.Sprintf("indent %d", n), 1), 1)
	}
	return out
}

func jsonToYAML(raw []byte) ([]byte, error) {
	var obj interface{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(yamlIndentation)
	if err := enc.Encode(&obj); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func resolve(req request, a *answer) ([]byte, error) {
	ctx := hubContext{}
	if len(req.Context) > 0 {
		if err := json.Unmarshal(req.Context, &ctx); err != nil {
			return nil, fmt.Errorf("oracle: bad context: %w", err)
		}
	}
	tmpl := template.New("tmpl").Delims(startDelim, stopDelim).Funcs(funcMap(req.Denylist))
	y, err := jsonToYAML([]byte(req.Template))
	if err != nil {
		return nil, fmt.Errorf("failed to convert the policy template to YAML: %w", err)
	}
	yamlText := string(y)
	a.YAML = &yamlText
	text := typedRe.ReplaceAllString(yamlText, ": $1")
	if strings.Contains(text, "autoindent") {
		text = autoindentRewrite(text)
	}
	a.Text = &text
	if tmpl, err = tmpl.Parse(text); err != nil {
		return nil, fmt.Errorf("failed to parse the template JSON string %v: %w", req.Template, err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, ctx); err != nil {
		return nil, fmt.Errorf("failed to resolve the template %v: %w", req.Template, err)
	}
	output := buf.String()
	a.Output = &output
	var out interface{}
	if err := yaml.Unmarshal(buf.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("failed to convert the resolved template to JSON: %w", err)
	}
	j, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("failed to convert the resolved template to JSON: %w", err)
	}
	return j, nil
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
		return answer{Error: &text}
	}
	j, err := resolve(req, &a)
	if err != nil {
		text := err.Error()
		a.Error = &text
		return a
	}
	a.JSON = j
	return a
}

func main() {
	lineproto.Serve("hubtemplate", func(line []byte) any { return answerOne(line) })
}
