//! Label selectors in the string syntax of apimachinery's `labels.Parse` (`a=b,c in (d),!e`),
//! with its error texts: template authors see them verbatim (`unable to parse requirement:
//! found 'IN', expected: in, notin, =, ==, !=, gt, lt`).

use std::collections::BTreeSet;
use std::fmt;

use super::labels::{label_value_errors, qualified_name_errors};

/// A parse failure, rendered as `labels.Parse` renders it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectorError(String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Operator {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One requirement; `values` sorted and deduplicated as apimachinery's string sets are.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    pub values: Vec<String>,
}

/// A parsed selector: requirements sorted by key. Empty matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Matches everything.
    pub fn everything() -> Self {
        Self::default()
    }

    /// `labels.Parse`.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut requirements = Parser::new(text).parse().map_err(SelectorError)?;
        // labels.Parse sorts by key; a stable sort keeps equal keys in source order.
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self { requirements })
    }

    /// Requires every `key` to exist (what a list of role labels selects).
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether an object with these labels is selected.
    pub fn matches(&self, labels: Option<&serde_json::Map<String, serde_json::Value>>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

impl Requirement {
    fn matches(&self, labels: Option<&serde_json::Map<String, serde_json::Value>>) -> bool {
        let value = labels.and_then(|l| l.get(&self.key)).map(|v| v.as_str().unwrap_or_default());
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => {
                value.is_some_and(|v| self.values.iter().any(|x| x == v))
            }
            Operator::NotIn | Operator::NotEquals => {
                value.is_none_or(|v| !self.values.iter().any(|x| x == v))
            }
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let (Some(Ok(have)), [want]) =
                    (value.map(str::parse::<i64>), self.values.as_slice())
                else {
                    return false;
                };
                let Ok(want) = want.parse::<i64>() else { return false };
                if self.operator == Operator::GreaterThan { have > want } else { have < want }
            }
        }
    }
}

/// `Selector.String()`: the canonical text used in object identifiers.
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if r.operator == Operator::DoesNotExist {
                f.write_str("!")?;
            }
            f.write_str(&r.key)?;
            let op = match r.operator {
                Operator::Equals => "=",
                Operator::DoubleEquals => "==",
                Operator::NotEquals => "!=",
                Operator::In => " in ",
                Operator::NotIn => " notin ",
                Operator::GreaterThan => ">",
                Operator::LessThan => "<",
                Operator::Exists | Operator::DoesNotExist => continue,
            };
            f.write_str(op)?;
            let set = matches!(r.operator, Operator::In | Operator::NotIn);
            if set {
                f.write_str("(")?;
            }
            f.write_str(&r.values.join(","))?;
            if set {
                f.write_str(")")?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn keyword(s: &str) -> Option<Token> {
    Some(match s {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// Byte lexer as apimachinery's: a NUL byte ends the input, special symbols are scanned
/// greedily while they still form a token.
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Lexer<'_> {
    fn read(&mut self) -> u8 {
        match self.s.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    fn lex(&mut self) -> (Token, String) {
        let mut ch = self.read();
        while is_whitespace(ch) {
            ch = self.read();
        }
        if ch == 0 {
            return (Token::EndOfString, String::new());
        }
        self.unread();
        if is_special(ch) { self.scan_special() } else { self.scan_identifier() }
    }

    fn scan_identifier(&mut self) -> (Token, String) {
        let mut buffer = Vec::new();
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if is_special(ch) || is_whitespace(ch) {
                self.unread();
                break;
            }
            buffer.push(ch);
        }
        let literal = String::from_utf8_lossy(&buffer).into_owned();
        match keyword(&literal) {
            Some(token) => (token, literal),
            None => (Token::Identifier, literal),
        }
    }

    fn scan_special(&mut self) -> (Token, String) {
        let mut buffer = String::new();
        let mut last: Option<(Token, String)> = None;
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if !is_special(ch) {
                self.unread();
                break;
            }
            buffer.push(char::from(ch));
            if let Some(token) = keyword(&buffer) {
                last = Some((token, buffer.clone()));
            } else if last.is_some() {
                self.unread();
                break;
            }
        }
        // Every single special symbol is a token, so `last` is always set here.
        last.unwrap_or((Token::EndOfString, String::new()))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

impl Parser {
    fn new(text: &str) -> Self {
        let mut lexer = Lexer { s: text.as_bytes(), pos: 0 };
        let mut items = Vec::new();
        loop {
            let item = lexer.lex();
            let end = item.0 == Token::EndOfString;
            items.push(item);
            if end {
                break;
            }
        }
        Parser { items, position: 0 }
    }

    fn item(&self, at: usize, context: Context) -> (Token, String) {
        // The last item is always EndOfString; reading past it keeps returning it.
        let (token, literal) = self
            .items
            .get(at)
            .or(self.items.last())
            .cloned()
            .unwrap_or((Token::EndOfString, String::new()));
        match (context, token) {
            (Context::Values, Token::In | Token::NotIn) => (Token::Identifier, literal),
            _ => (token, literal),
        }
    }

    fn lookahead(&self, context: Context) -> (Token, String) {
        self.item(self.position, context)
    }

    fn consume(&mut self, context: Context) -> (Token, String) {
        let item = self.item(self.position, context);
        self.position += 1;
        item
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead(Context::Values);
            match token {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    let (t, l) = self.consume(Context::Values);
                    match t {
                        Token::EndOfString => return Ok(requirements),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Token::EndOfString => return Ok(requirements),
                _ => {
                    return Err(format!(
                        "found '{literal}', expected: !, identifier, or 'end of string'"
                    ));
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, String> {
        let (key, operator) = self.parse_key_and_infer_operator()?;
        if let Some(op @ (Operator::Exists | Operator::DoesNotExist)) = operator {
            return new_requirement(key, op, Vec::new());
        }
        let operator = self.parse_operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        new_requirement(key, operator, values.into_iter().collect())
    }

    fn parse_key_and_infer_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let mut operator = None;
        let (mut token, mut literal) = self.consume(Context::Values);
        if token == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (token, literal) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        let errors = qualified_name_errors(&literal);
        if !errors.is_empty() {
            // The parser validates with a nil field path, which prints as `<nil>`.
            return Err(invalid("<nil>", &literal, &errors));
        }
        let (next, _) = self.lookahead(Context::Values);
        if (next == Token::EndOfString || next == Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((literal, operator))
    }

    fn parse_operator(&mut self) -> Result<Operator, String> {
        let (token, literal) = self.consume(Context::KeyAndOperator);
        Ok(match token {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => {
                return Err(format!("found '{literal}', expected: in, notin, =, ==, !=, gt, lt"));
            }
        })
    }

    fn parse_values(&mut self) -> Result<BTreeSet<String>, String> {
        let (token, literal) = self.consume(Context::Values);
        if token != Token::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead(Context::Values);
        match token {
            Token::Identifier | Token::Comma => {
                let set = self.parse_identifiers_list()?;
                let (closing, _) = self.consume(Context::Values);
                if closing != Token::ClosedPar {
                    // Upstream reports the literal seen before the list, not the one found.
                    return Err(format!("found '{literal}', expected: ')'"));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(format!("found '{literal}', expected: ',', ')' or identifier")),
        }
    }

    fn parse_identifiers_list(&mut self) -> Result<BTreeSet<String>, String> {
        let mut set = BTreeSet::new();
        loop {
            let (token, literal) = self.consume(Context::Values);
            match token {
                Token::Identifier => {
                    set.insert(literal);
                    let (next, next_literal) = self.lookahead(Context::Values);
                    match next {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(set),
                        _ => return Err(format!("found '{next_literal}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        set.insert(String::new());
                    }
                    let (next, _) = self.lookahead(Context::Values);
                    if next == Token::ClosedPar {
                        set.insert(String::new());
                        return Ok(set);
                    }
                    if next == Token::Comma {
                        self.consume(Context::Values);
                        set.insert(String::new());
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
    }

    fn parse_exact_value(&mut self) -> Result<BTreeSet<String>, String> {
        let (token, _) = self.lookahead(Context::Values);
        if token == Token::EndOfString || token == Token::Comma {
            return Ok(BTreeSet::from([String::new()]));
        }
        let (token, literal) = self.consume(Context::Values);
        if token == Token::Identifier {
            return Ok(BTreeSet::from([literal]));
        }
        Err(format!("found '{literal}', expected: identifier"))
    }
}

/// `field.Invalid(path, value, detail).Error()` for a string value.
fn invalid(path: &str, value: &str, details: &[String]) -> String {
    format!("{path}: Invalid value: {}: {}", certgate_gofmt::quote(value), details.join("; "))
}

/// `labels.NewRequirement`'s value checks (the key was validated while parsing), aggregated
/// as `utilerrors.NewAggregate` prints them.
fn new_requirement(
    key: String,
    operator: Operator,
    values: Vec<String>,
) -> Result<Requirement, String> {
    let mut errors: Vec<String> = Vec::new();
    if matches!(operator, Operator::GreaterThan | Operator::LessThan) {
        if values.len() != 1 {
            errors.push(format!(
                "values: Invalid value: {}: for 'Gt', 'Lt' operators, exactly one value is required",
                certgate_gofmt::go_string_slice("string", &values)
            ));
        }
        for (i, value) in values.iter().enumerate() {
            if value.parse::<i64>().is_err() {
                errors.push(invalid(
                    &format!("values[{i}]"),
                    value,
                    &["for 'Gt', 'Lt' operators, the value must be an integer".to_owned()],
                ));
            }
        }
    }
    for (i, value) in values.iter().enumerate() {
        let problems = label_value_errors(value);
        if !problems.is_empty() {
            errors.push(invalid(&format!("values[{i}][{key}]"), value, &problems));
        }
    }
    let mut unique: Vec<String> = Vec::new();
    for error in errors {
        if !unique.contains(&error) {
            unique.push(error);
        }
    }
    match unique.as_slice() {
        [] => Ok(Requirement { key, operator, values }),
        [one] => Err(one.clone()),
        many => Err(format!("[{}]", many.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<String, String> {
        LabelSelector::parse(s).map(|s| s.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_and_prints_canonically() {
        #[rustfmt::skip]
        let cases = [
            ("", ""),
            ("a=b", "a=b"),
            ("b==c,a", "a,b==c"),
            ("x!=y, !z", "x!=y,!z"),
            ("env in (prod, dev)", "env in (dev,prod)"),
            ("env notin (a)", "env notin (a)"),
            ("n>5,m<3", "m<3,n>5"),
            ("a=", "a="),
            ("a in ()", "a in ()"),
            ("node-role.kubernetes.io/master,node-role.kubernetes.io/infra", "node-role.kubernetes.io/infra,node-role.kubernetes.io/master"),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input).as_deref(), Ok(want), "{input}");
        }
    }

    #[test]
    fn errors_match_apimachinery() {
        #[rustfmt::skip]
        let cases = [
            ("env IN (a)", "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt"),
            ("a=b,", "found '', expected: identifier after ','"),
            ("a=b c", "found 'c', expected: ',' or 'end of string'"),
            ("=a", "found '=', expected: !, identifier, or 'end of string'"),
            ("a in b", "unable to parse requirement: found 'b' expected: '('"),
            ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
            ("a>b", "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"),
            ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
            ("a=-x", "unable to parse requirement: values[0][a]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
            ("-a=b", "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input), Err(want.to_owned()), "{input}");
        }
    }

    #[test]
    fn matching() {
        let labels = serde_json::json!({"env": "prod", "n": "7"});
        let labels = labels.as_object();
        for (s, want) in [
            ("env=prod", true),
            ("env!=prod", false),
            ("missing!=x", true),
            ("env in (dev,prod)", true),
            ("env notin (prod)", false),
            ("env", true),
            ("!env", false),
            ("n>5", true),
            ("n<5", false),
            ("", true),
        ] {
            assert_eq!(LabelSelector::parse(s).map(|sel| sel.matches(labels)), Ok(want), "{s}");
        }
    }
}
