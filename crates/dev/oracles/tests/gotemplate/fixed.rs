//! Every mismatch the generator found, with upstream's recorded answer; exceptions carry their
//! reason and are counted by the generated run rather than passed silently.

use crate::Outcome;

pub enum Upstream {
    Output(&'static str),
    Error(&'static str),
}

impl Upstream {
    pub fn outcome(&self) -> Outcome {
        match self {
            Upstream::Output(o) => Outcome::Output((*o).to_owned()),
            Upstream::Error(e) => Outcome::Error((*e).to_owned()),
        }
    }
}

pub struct Fixed {
    pub template: &'static str,
    pub data: &'static str,
    pub sprig: bool,
    pub float64: bool,
    pub upstream: Upstream,
    /// `Some(reason)`: certgate differs on purpose or cannot follow; `None`: must agree.
    pub exception: Option<&'static str>,
}

/// Go converts an untyped constant such as `1e3` to a function's `int` parameter; certgate
/// sees a float64 and cannot tell a literal from data (a float64 from data is an error in Go
/// as well).
pub const UNTYPED_CONSTANT: &str = "untyped float constant passed to an int parameter";
/// Go tells a key present with a null value (an `interface {}` holding nil: refused for a map
/// parameter, `got interface {}`) from a missing key or the `nil` literal (a nil map,
/// accepted); certgate's data has one nil and treats it as the latter.
pub const NIL_DATA: &str = "a null stored in the data, passed to a map parameter";
/// Go's `slice` checks indices against the slice's capacity, which for JSON-decoded lists
/// exceeds their length (append growth); certgate has lengths only.
pub const SLICE_CAP: &str = "slice bounds checked against Go's capacity";
/// `semver` returns a dictionary, not a `*semver.Version` (printed `3.0.0` by Go); see
/// certgate-sprig's crate docs.
pub const SEMVER: &str = "semver's result prints as a dictionary";

pub const CASES: &[Fixed] = &[
    // Fixed in certgate-gotemplate (builtins::run): Go's escapers are variadic.
    Fixed {
        template: r#"{{urlquery .f ""}}|{{js 1 2}}|{{html}}"#,
        data: r#"{"f":2.5}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("2.5|1 2|"),
        exception: None,
    },
    // Fixed: `index` with no indices is its item.
    Fixed {
        template: "{{index .f}}",
        data: r#"{"f":1.5}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("1.5"),
        exception: None,
    },
    // Fixed: the escapers print nil as `<no value>`, with no space next to it.
    Fixed {
        template: "{{html .z}}|{{html false .missing}}|{{urlquery .z}}",
        data: r#"{"z":null}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("&lt;no value&gt;|false&lt;no value&gt;|%3Cno+value%3E"),
        exception: None,
    },
    // Fixed (Go's fmt): Go's %T names.
    Fixed {
        template: r#"{{printf "%T|%T|%T|%T" .l .m .u nil}}"#,
        data: r#"{"l":[1],"m":{"a":1},"u":18446744073709551615}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(r#"[]interface {}|map[string]interface {}|uint64|<nil>"#),
        exception: None,
    },
    // Fixed (Go's fmt): %c/%U/%q of integers are runes.
    Fixed {
        template: r#"{{printf "%c|%U|%#U|%q|%+q" 65 233 233 10 233}}"#,
        data: r#"{}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(r#"A|U+00E9|U+00E9 'é'|'\n'|'\u00e9'"#),
        exception: None,
    },
    // Fixed (Go's fmt): integral floats under integer verbs; verbs
    // applied to each element, flags kept.
    Fixed {
        template: r#"{{printf "%d|%x|%5.1f" 1.0 .f .l}}"#,
        data: r#"{"f":2.0,"l":[1.25,"a"]}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(r#"%!d(float64=1)|0x1p+01|[  1.2 %!f(string=    a)]"#),
        exception: None,
    },
    // Fixed (Go's fmt): flags inside %!verb(type=value).
    Fixed {
        template: r#"{{printf "%-6d|%06s" "ab" nil}}"#,
        data: r#"{}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(r#"%!d(string=ab    )|%!s(<nil>)"#),
        exception: None,
    },
    // Fixed (Go's fmt): %!(EXTRA type=value) with Go's type names.
    Fixed {
        template: r#"{{printf "%d" 1 2 "a" nil .l .m 2.5 true}}"#,
        data: r#"{"l":[1],"m":{"a":1}}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(
            r#"1%!(EXTRA int=2, string=a, <nil>, []interface {}=[1], map[string]interface {}=map[a:1], float64=2.5, bool=true)"#,
        ),
        exception: None,
    },
    // Fixed (Go's fmt): BADWIDTH, BADPREC, argument indexes, NOVERB.
    Fixed {
        template: r#"{{printf "%*d|%.*f|%[3]d|%" "a" 1 -1 2.5}}"#,
        data: r#"{}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(r#"%!(BADWIDTH)1|%!(BADPREC)2.500000|-1|%!(NOVERB)"#),
        exception: None,
    },
    // Fixed (Go's fmt): print spaces operands when neither is a string;
    // %v of a float64 uses %g's exponent.
    Fixed {
        template: r#"{{print 1 2 "a" 3 nil .f}} {{println .l "b" 1e21}}"#,
        data: r#"{"f":1e-7,"l":[0.5,null]}"#,
        sprig: false,
        float64: true,
        upstream: Upstream::Output("1 2a3 <nil> 1e-07 [0.5 <nil>] b 1e+21\n"),
        exception: None,
    },
    // Fixed (Go's fmt): actions print Go's %v.
    Fixed {
        template: r#"{{.f}}|{{.l}}|{{.m}}|{{$x := .f}}{{$x}}|{{.z}}|{{index .l 1}}"#,
        data: r#"{"f":1e21,"l":[1e6,null,0.0001],"m":{"k":123456789.0},"z":null}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(
            r#"1e+21|[1e+06 <nil> 0.0001]|map[k:1.23456789e+08]|1e+21|<no value>|<no value>"#,
        ),
        exception: None,
    },
    // Fixed (Go's fmt): %x/%X/% x/%q element-wise, map keys too.
    Fixed {
        template: r#"{{printf "%x|%X|% x|%q" .s .s .s .s}}"#,
        data: r#"{"s":["ab",1,{"k":"é"}]}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(
            r#"[6162 1 map[6b:c3a9]]|[6162 1 map[6B:C3A9]]|[61 62  1 map[6b:c3 a9]]|["ab" '\x01' map["k":"é"]]"#,
        ),
        exception: None,
    },
    // Fixed (Go's fmt): %#v is Go syntax.
    Fixed {
        template: r#"{{printf "%#v|%#v|%#v" .l .m .u}}"#,
        data: r#"{"l":[1,"a",null,1.5],"m":{"a":{"b":[]}},"u":18446744073709551615}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(
            r#"[]interface {}{1, "a", interface {}(nil), 1.5}|map[string]interface {}{"a":map[string]interface {}{"b":[]interface {}{}}}|0xffffffffffffffff"#,
        ),
        exception: None,
    },
    // Fixed (Go's fmt): %v and %s of maps: sorted keys, verbs on keys and values.
    Fixed {
        template: r#"{{printf "%v %s" .m .m}}"#,
        data: r#"{"m":{"b":[true,null],"a":2.5e-5}}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output(
            r#"map[a:2.5e-05 b:[true <nil>]] map[a:%!s(float64=2.5e-05) b:[%!s(bool=true) <nil>]]"#,
        ),
        exception: None,
    },
    // Fixed (Go's fmt): float64 data (encoding/json's plain
    // decoding) prints with %g.
    Fixed {
        template: r#"{{.a}} {{printf "%v|%d|%.2f" .a .b .b}}"#,
        data: r#"{"a":100000000,"b":3}"#,
        sprig: false,
        float64: true,
        upstream: Upstream::Output(r#"1e+08 1e+08|%!d(float64=3)|3.00"#),
        exception: None,
    },
    // Fixed (Go's fmt): the cases the generator found first.
    Fixed {
        template: r#"{{printf "%X" .strs}}"#,
        data: r#"{"strs":["b","a"]}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("[62 61]"),
        exception: None,
    },
    Fixed {
        template: r#"{{printf "%q" 1}}"#,
        data: "{}",
        sprig: false,
        float64: false,
        upstream: Upstream::Output(r"'\x01'"),
        exception: None,
    },
    Fixed {
        template: "{{.f}}",
        data: r#"{"f":123456789.0}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("1.23456789e+08"),
        exception: None,
    },
    Fixed {
        template: "{{html .f 1 | len}}",
        data: r#"{"f":1000000.0}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("7"),
        exception: None,
    },
    Fixed {
        template: r#"{{semver "3"}}"#,
        data: "{}",
        sprig: true,
        float64: false,
        upstream: Upstream::Output("3.0.0"),
        exception: Some(SEMVER),
    },
    Fixed {
        template: r#"{{abbrevboth 1e3 1 ""}}"#,
        data: "{}",
        sprig: true,
        float64: false,
        upstream: Upstream::Output(""),
        exception: Some(UNTYPED_CONSTANT),
    },
    Fixed {
        template: "{{merge .z}}",
        data: r#"{"z":null}"#,
        sprig: true,
        float64: false,
        upstream: Upstream::Error(
            "template: t:1:8: executing \"t\" at <.z>: wrong type for value; expected map[string]interface {}; got interface {}",
        ),
        exception: Some(NIL_DATA),
    },
    Fixed {
        template: "{{slice .l 4 4}}",
        data: r#"{"l":[1,2,3]}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Output("[]"),
        exception: Some(SLICE_CAP),
    },
];

/// The reason a generated template is a listed exception, if it contains one's pattern.
pub fn excepted(template: &str, ours: &Outcome, theirs: &Outcome) -> Option<&'static str> {
    if let (Outcome::Error(ours), Outcome::Output(_)) = (ours, theirs) {
        if ours.contains("slice index out of range") {
            return Some(SLICE_CAP);
        }
        return ours.contains("expected int; got float64").then_some(UNTYPED_CONSTANT);
    }
    if let (Outcome::Output(_), Outcome::Error(go)) = (ours, theirs) {
        return go.contains("; got interface {}").then_some(NIL_DATA);
    }
    let (Outcome::Output(_), Outcome::Output(_)) = (ours, theirs) else {
        return None;
    };
    if template.contains("semver ") {
        return Some(SEMVER);
    }
    None
}
