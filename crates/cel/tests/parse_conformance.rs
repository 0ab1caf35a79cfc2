//! Parses every expression of the CEL conformance suite
//! (`../shared/conformance/cel-spec/cases.json`) with certgate's own parser.
//!
//! Every case that expects a value must parse: a failure is a grammar bug. Cases that
//! expect an evaluation error or are skipped by the JSON harness are parsed as well and
//! counted; none of them expects a parse-level error (checked below), so they must
//! parse too unless listed in [`EXCEPTIONS`].

use certgate_cel::syntax::parse;

const CASES: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/cel-spec/cases.json");

/// `(file, name, reason)` of cases that do not parse on purpose.
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    ("block_ext", "basic/multiple_macros_1", BLOCK_ITER_VAR),
    ("block_ext", "basic/multiple_macros_2", BLOCK_ITER_VAR),
    ("block_ext", "basic/multiple_macros_3", BLOCK_ITER_VAR),
    ("block_ext", "basic/nested_macros_1", BLOCK_ITER_VAR),
    ("block_ext", "basic/nested_macros_2", BLOCK_ITER_VAR),
    ("block_ext", "basic/adjacent_macros", BLOCK_ITER_VAR),
    ("block_ext", "basic/macro_shadowed_variable_1", BLOCK_ITER_VAR),
    ("block_ext", "basic/macro_shadowed_variable_2", BLOCK_ITER_VAR),
];

/// Why the `cel.block` cases above are exceptions.
const BLOCK_ITER_VAR: &str = "uses `cel.iterVar(i, j)` as a comprehension variable: output of cel-go's \
     common-subexpression optimizer (block_ext, not a target of issue #3); a macro's \
     variable must be a simple name";

#[derive(Debug)]
enum Json {
    Null,
    Bool,
    Number,
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self, key: &str) -> &str {
        match self.get(key) {
            Some(Json::String(s)) => s,
            _ => "",
        }
    }
}

/// Just enough JSON for the conformance file: the harness has no JSON dependency.
struct Reader<'a> {
    rest: &'a str,
}

impl Reader<'_> {
    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, prefix: &str) -> bool {
        self.skip_ws();
        match self.rest.strip_prefix(prefix) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_ws();
        if self.eat("null") {
            return Ok(Json::Null);
        }
        if self.eat("true") || self.eat("false") {
            return Ok(Json::Bool);
        }
        if self.eat("[") {
            let mut items = Vec::new();
            while !self.eat("]") {
                items.push(self.value()?);
                self.eat(",");
            }
            return Ok(Json::Array(items));
        }
        if self.eat("{") {
            let mut fields = Vec::new();
            while !self.eat("}") {
                let Json::String(key) = self.value()? else {
                    return Err(format!("object key expected at {:.40}", self.rest));
                };
                if !self.eat(":") {
                    return Err(format!("':' expected at {:.40}", self.rest));
                }
                fields.push((key, self.value()?));
                self.eat(",");
            }
            return Ok(Json::Object(fields));
        }
        if self.eat("\"") {
            return self.string().map(Json::String);
        }
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(format!("value expected at {:.40}", self.rest));
        }
        self.rest = &self.rest[end..];
        Ok(Json::Number)
    }

    fn string(&mut self) -> Result<String, String> {
        let mut out = String::new();
        let mut chars = self.rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &self.rest[i + 1..];
                    return Ok(out);
                }
                '\\' => match chars.next().map(|(_, e)| e) {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('b') => out.push('\u{8}'),
                    Some('f') => out.push('\u{c}'),
                    Some('u') => {
                        let hex: String =
                            (0..4).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                        let mut unit = u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?;
                        if (0xD800..0xDC00).contains(&unit) {
                            // A surrogate pair: `\uD83D\uDE2C`.
                            let low: String =
                                (0..6).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                            let low = u32::from_str_radix(low.trim_start_matches("\\u"), 16)
                                .map_err(|e| e.to_string())?;
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        }
                        out.push(char::from_u32(unit).ok_or("invalid \\u escape")?);
                    }
                    Some(other) => out.push(other),
                    None => break,
                },
                _ => out.push(c),
            }
        }
        Err("unterminated string".to_owned())
    }
}

struct Case {
    file: String,
    name: String,
    expr: String,
    /// `value`, `error` or `skip`.
    expectation: &'static str,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(CASES).unwrap_or_else(|e| panic!("reading {CASES}: {e}"));
    let json = Reader { rest: &text }.value().unwrap_or_else(|e| panic!("parsing {CASES}: {e}"));
    let Json::Array(items) = json else {
        panic!("{CASES} is not a JSON list");
    };
    items
        .iter()
        .map(|case| {
            let expectation = match case.get("expect") {
                Some(e) if e.get("value").is_some() => "value",
                Some(e) if e.get("error").is_some() => "error",
                _ => "skip",
            };
            Case {
                file: case.str("file").to_owned(),
                name: format!("{}/{}", case.str("section"), case.str("name")),
                expr: case.str("expr").to_owned(),
                expectation,
            }
        })
        .collect()
}

fn is_exception(case: &Case) -> bool {
    EXCEPTIONS.iter().any(|(file, name, _)| *file == case.file && *name == case.name)
}

#[test]
fn every_conformance_expression_parses() {
    let cases = cases();
    assert_eq!(cases.len(), 2456, "the conformance file changed size");
    let mut failures = Vec::new();
    let mut counts = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for case in &cases {
        let parsed = parse(&case.expr);
        let entry = counts.entry(case.expectation).or_default();
        entry.0 += 1;
        match parsed {
            Ok(_) if is_exception(case) => failures
                .push(format!("{} {}: listed as an exception but parses", case.file, case.name)),
            Ok(_) => entry.1 += 1,
            Err(e) if !is_exception(case) => {
                failures.push(format!("{} {}: {}\n{e}", case.file, case.name, case.expr))
            }
            Err(_) => {}
        }
    }
    for (expectation, (total, parsed)) in &counts {
        println!("expect {expectation}: {parsed}/{total} parsed");
    }
    assert!(
        failures.is_empty(),
        "{} cases failed to parse:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(counts.get("value"), Some(&(1593, 1593 - EXCEPTIONS.len())));
    assert_eq!(counts.get("error"), Some(&(213, 213)));
    assert_eq!(counts.get("skip"), Some(&(650, 650)));
}

#[test]
fn parse_file_cases_parse() {
    let parse_cases: Vec<Case> = cases().into_iter().filter(|c| c.file == "parse").collect();
    assert_eq!(parse_cases.len(), 219);
    let parsed = parse_cases.iter().filter(|c| parse(&c.expr).is_ok()).count();
    println!("file parse: {parsed}/{} parsed", parse_cases.len());
    assert_eq!(parsed, parse_cases.len());
}

/// The JSON suite has no case expecting a parse error; if one appears, this test
/// fails so that the harness is extended to assert it.
#[test]
fn no_case_expects_a_parse_error() {
    let syntax_errors: Vec<String> = cases()
        .iter()
        .filter(|c| c.expectation == "error" && parse(&c.expr).is_err() && !is_exception(c))
        .map(|c| format!("{} {}", c.file, c.name))
        .collect();
    assert_eq!(syntax_errors, Vec::<String>::new());
}
