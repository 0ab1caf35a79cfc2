//! Fixed cases for the engine's classes (certgate-gotemplate `engine/`): field chains through
//! a null stored in a map, the byte (`uint8`) that `index` of a string yields, and builtin
//! checks. Same format as `fixed::CASES`; upstream's answers recorded from the oracle.

use crate::fixed::{Fixed, Upstream};

/// Go's `range` hands each element over as an `interface {}`: a null element is a nil
/// interface, and a field of it is an error; certgate's dot is then nil like a missing key.
pub const NIL_ELEMENT: &str = "a field of a null list or map element reached by range";
/// Go's `slice` stops at the first index beyond the list's capacity; certgate cannot tell a
/// list's capacity, leaves the call to gotmpl, which refuses a later non-integer index first.
pub const SLICE_ORDER: &str = "slice index beyond the length before a later bad index";

pub const CASES: &[Fixed] = &[
    // A field of a null stored in a map is Go's nil `interface {}` (a missing key is not).
    Fixed {
        template: r#"{{with .m}}{{.d.y}}{{end}}"#,
        data: r#"{"m":{"d":null}}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Error(
            r#"template: t:1:15: executing "t" at <.d.y>: nil pointer evaluating interface {}.y"#,
        ),
        exception: None,
    },
    Fixed {
        template: r#"{{$x := .m}}{{$x.d.y.z}} {{.m.q.y.z}}"#,
        data: r#"{"m":{"d":{"y":null}}}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Error(
            r#"template: t:1:16: executing "t" at <$x.d.y.z>: nil pointer evaluating interface {}.z"#,
        ),
        exception: None,
    },
    Fixed {
        template: r#"{{range .l}}{{.y}}{{end}}"#,
        data: r#"{"l":[null]}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Error(
            r#"template: t:1:14: executing "t" at <.y>: nil pointer evaluating interface {}.y"#,
        ),
        exception: Some(NIL_ELEMENT),
    },
    // `index` of a string is a byte: a number when printed, `uint8` by type.
    Fixed {
        template: r#"{{index "baca" 1 | len}}"#,
        data: "{}",
        sprig: false,
        float64: false,
        upstream: Upstream::Error(
            r#"template: t:1:19: executing "t" at <len>: error calling len: len of type uint8"#,
        ),
        exception: None,
    },
    Fixed {
        template: r#"{{with $x := index "ab" 0}}{{.nums}}{{end}}"#,
        data: "{}",
        sprig: false,
        float64: false,
        upstream: Upstream::Error(
            r#"template: t:1:29: executing "t" at <.nums>: can't evaluate field nums in type uint8"#,
        ),
        exception: None,
    },
    Fixed {
        template: r#"{{index "ab" 1}} {{typeOf (index "ab" 0)}} {{eq (index "ab" 0) 97}}"#,
        data: "{}",
        sprig: true,
        float64: false,
        upstream: Upstream::Output("98 uint8 true"),
        exception: None,
    },
    Fixed {
        template: r#"{{slice .nums (len .strs) .e}}"#,
        data: r#"{"nums":[1,2],"strs":["b","a","c","a"],"e":""}"#,
        sprig: false,
        float64: false,
        upstream: Upstream::Error(
            r#"template: t:1:2: executing "t" at <slice .nums (len .strs) .e>: error calling slice: index out of range: 4"#,
        ),
        exception: Some(SLICE_ORDER),
    },
];
