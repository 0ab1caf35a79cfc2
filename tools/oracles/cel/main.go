// Command cel is the differential-testing oracle for certgate-cel: it answers with what
// cel-go (the version cert-manager/approver-policy pins) does with a `validations` rule,
// in the environment approver-policy builds (pkg/internal/approver/validation), one JSON
// case per line.
//
//	{"rule":"...","vars":{"self":"...","cr":{"name":..,"namespace":..,"username":..,"groups":[..]}}}
//	  -> {"phase":"compile","error":"..."}   cel-go refused the rule (parse or check)
//	   | {"phase":"type","error":"..."}      approver-policy's own result-type check
//	   | {"phase":"eval","error":"..."}      evaluation failed (cost limit included)
//	   | {"phase":"ok","value":true|false}
//
// The environment, the result-type check and the program options copy approver-policy's
// validator: no parser options (so cel-go's defaults: recursion limit 250, 100,000 code
// points), ext.Strings() at its default version, cost limit 1,000,000, interrupt check
// every 100 iterations. The CertificateRequest message is declared from a descriptor
// built here, with the proto package and fields approver-policy's .proto declares.
package main

import (
	"certgate.dev/tools/oracles/lineproto"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	pkg     = "cm.io.policy.pkg.internal.approver.validation"
	crType  = pkg + ".CertificateRequest"
	saType  = pkg + ".ServiceAccount"
	saPrefx = "system:serviceaccount:"
)

type request struct {
	Rule string `json:"rule"`
	Vars struct {
		Self string `json:"self"`
		CR   struct {
			Name      string   `json:"name"`
			Namespace string   `json:"namespace"`
			Username  string   `json:"username"`
			Groups    []string `json:"groups"`
		} `json:"cr"`
	} `json:"vars"`
}

type answer struct {
	Phase string `json:"phase,omitempty"`
	Error string `json:"error,omitempty"`
	Value *bool  `json:"value,omitempty"`
	Panic string `json:"panic,omitempty"`
}

// crDescriptor mirrors approver-policy's certificaterequest.proto.
func crDescriptor() (protoreflect.FileDescriptor, error) {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	field := func(name string, n int32, label *descriptorpb.FieldDescriptorProto_Label) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: str, Label: label, JsonName: proto.String(name)}
	}
	file := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("certificaterequest.proto"),
		Package: proto.String(pkg),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("CertificateRequest"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("name", 1, opt), field("namespace", 2, opt), field("username", 3, opt), field("groups", 4, rep),
			},
		}},
	}
	return protodesc.NewFile(file, nil)
}

// serviceAccount is approver-policy's ServiceAccount value type.
type serviceAccount struct{ Name, Namespace string }

var saCelType = cel.ObjectType(saType)

func (sa serviceAccount) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'serviceaccount' to '%v'", t)
}
func (sa serviceAccount) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case saCelType:
		return sa
	case types.TypeType:
		return saCelType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", saCelType, t)
}
func (sa serviceAccount) Equal(o ref.Val) ref.Val {
	other, ok := o.(serviceAccount)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(sa == other)
}
func (sa serviceAccount) Type() ref.Type { return saCelType }
func (sa serviceAccount) Value() any     { return sa }

var errUsername = errors.New("Username must be in the form system:serviceaccount:namespace:name")

// splitUsername has the semantics of k8s.io/apiserver's serviceaccount.SplitUsername
// (a namespace that is a DNS-1123 label, a name that is a DNS-1123 subdomain); the
// apiserver module itself is not imported to keep the oracle's dependency graph small.
func splitUsername(s string) (string, string, error) {
	if !strings.HasPrefix(s, saPrefx) {
		return "", "", errUsername
	}
	parts := strings.Split(strings.TrimPrefix(s, saPrefx), ":")
	if len(parts) != 2 {
		return "", "", errUsername
	}
	if len(validation.IsDNS1123Label(parts[0])) != 0 || len(validation.IsDNS1123Subdomain(parts[1])) != 0 {
		return "", "", errUsername
	}
	return parts[0], parts[1], nil
}

func saFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("serviceAccount", cel.Overload("username_to_serviceaccount", []*cel.Type{cel.StringType}, saCelType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				ns, name, err := splitUsername(s)
				if err != nil {
					return types.NewErr("Unable to convert to serviceaccount: err: %s, username: %s", err, s)
				}
				return serviceAccount{Name: name, Namespace: ns}
			}))),
		cel.Function("getName", cel.MemberOverload("serviceaccount_get_name", []*cel.Type{saCelType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(v.(serviceAccount).Name) }))),
		cel.Function("getNamespace", cel.MemberOverload("serviceaccount_get_namespace", []*cel.Type{saCelType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(v.(serviceAccount).Namespace) }))),
		cel.Function("isServiceAccount", cel.Overload("serviceaccount_is_sa", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				_, _, err := splitUsername(s)
				return types.Bool(err == nil)
			}))),
	}
}

type oracle struct {
	env *cel.Env
	msg protoreflect.MessageDescriptor
}

func newOracle() (*oracle, error) {
	fd, err := crDescriptor()
	if err != nil {
		return nil, err
	}
	opts := []cel.EnvOption{
		cel.TypeDescs(fd),
		cel.Variable("self", cel.StringType),
		cel.Variable("cr", cel.ObjectType(crType)),
		ext.Strings(),
	}
	env, err := cel.NewEnv(append(opts, saFunctions()...)...)
	if err != nil {
		return nil, err
	}
	return &oracle{env: env, msg: fd.Messages().Get(0)}, nil
}

func (o *oracle) run(req request) answer {
	ast, iss := o.env.Compile(req.Rule)
	if iss.Err() != nil {
		return answer{Phase: "compile", Error: iss.Err().Error()}
	}
	if !reflect.DeepEqual(ast.OutputType(), cel.BoolType) {
		return answer{Phase: "type", Error: fmt.Sprintf("got %v, wanted %v result type", ast.OutputType(), cel.BoolType)}
	}
	prg, err := o.env.Program(ast, cel.CostLimit(1000000), cel.InterruptCheckFrequency(100))
	if err != nil {
		return answer{Phase: "compile", Error: err.Error()}
	}
	cr := dynamicpb.NewMessage(o.msg)
	fields := o.msg.Fields()
	cr.Set(fields.ByName("name"), protoreflect.ValueOfString(req.Vars.CR.Name))
	cr.Set(fields.ByName("namespace"), protoreflect.ValueOfString(req.Vars.CR.Namespace))
	cr.Set(fields.ByName("username"), protoreflect.ValueOfString(req.Vars.CR.Username))
	groups := cr.Mutable(fields.ByName("groups")).List()
	for _, g := range req.Vars.CR.Groups {
		groups.Append(protoreflect.ValueOfString(g))
	}
	out, _, err := prg.Eval(map[string]any{"self": req.Vars.Self, "cr": cr})
	if err != nil {
		return answer{Phase: "eval", Error: err.Error()}
	}
	b, ok := out.Value().(bool)
	if !ok {
		return answer{Phase: "eval", Error: fmt.Sprintf("non-bool result %v", out)}
	}
	return answer{Phase: "ok", Value: &b}
}

// answerOne never lets a case crash the process: the test needs an answer per case.
func (o *oracle) answerOne(line []byte) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Panic: fmt.Sprint(r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Panic: "bad request: " + err.Error()}
	}
	return o.run(req)
}

func main() {
	o, err := newOracle()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lineproto.Serve("cel", func(line []byte) any { return o.answerOne(line) })
}
