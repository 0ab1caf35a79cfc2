//! Go's first lexical error, and the parser error Go gives for a character that starts no
//! token (`unexpected "\\" in command`), worded and placed as Go words and places them.
//!
//! Go's parser reads tokens front to back and stops at the first one it cannot use; for a
//! stray character the message names where it stood: after an operand it is `in operand`,
//! at the start of a pipeline it is the pipeline's context (`command`, `if`, `range`,
//! `template clause`, `parenthesized pipeline`, ...). Go would stop earlier on any parser
//! error before that token, so an answer is given only when everything before it is known
//! to be clean: earlier actions by the caller's check (gotmpl's parser and Go's name
//! checks), the tokens of the same action by the rules in `Action::step`. Otherwise the
//! caller keeps gotmpl's (mapped) error.

mod definitions;
mod lexer;

pub(crate) use definitions::first_redefinition;

use lexer::{Kind, Lexer};

/// Where Go stops and what it says (without the `template: name:line: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError {
    pub offset: usize,
    /// Where the action (or comment) holding it starts.
    pub action: usize,
    pub line: usize,
    pub message: String,
}

/// What the caller knows about the template around the error.
pub(crate) struct Context<'a> {
    /// The template's name, as Go prints it in `action started at name:line`.
    pub name: &'a str,
    pub left: &'a str,
    pub right: &'a str,
    /// Whether an identifier names a function (Go fails on one that does not).
    pub is_function: &'a dyn Fn(&str) -> bool,
    /// What Go's parser finds before this offset (an action's start).
    pub clean_before: &'a dyn Fn(usize) -> Prefix,
    /// What Go's parser finds before the second offset, taking the action that starts at
    /// the first offset as closed there (so the variables it uses are checked).
    pub clean_through: &'a dyn Fn(usize, usize) -> Prefix,
}

/// What Go's parser makes of the source before a point.
pub(crate) enum Prefix {
    /// No error.
    Clean,
    /// A name error Go reports first: its byte offset and message.
    Error(usize, String),
    /// Not known (gotmpl refused it): no answer is given.
    Unknown,
}

/// The first error Go's lexer (or its parser, on a stray character) reports in `source`,
/// when Go is known to reach it.
pub(crate) fn first_error(source: &str, context: &Context<'_>) -> Option<LexError> {
    let items = Lexer::items(source, context.left, context.right);
    let lines = super::super::source::LineIndex::new(source);
    let line_of = |offset: usize| lines.line_column(offset).0;
    let mut action = Action::default();
    // Go remembers the line of the action being parsed; a control action (`if`, `range`,
    // ...) keeps it while its body's text is read, any other action clears it on return.
    let mut action_line = 0;
    let mut action_start = 0;
    for item in &items {
        let found = match &item.kind {
            Kind::LeftDelim => {
                action = Action::default();
                action_line = line_of(item.start);
                action_start = item.start;
                None
            }
            Kind::CommentDelim => {
                action_start = item.start;
                None
            }
            Kind::RightDelim if action.unnamed() => {
                Some(format!("unexpected {:?} in {}", context.right, action.context()))
            }
            Kind::RightDelim | Kind::RightParen if action.empty_pipeline() => {
                Some(format!("missing value for {}", action.context()))
            }
            Kind::RightDelim => {
                if !matches!(action.first, Some("if" | "range" | "with" | "define" | "block")) {
                    action_line = 0;
                }
                action = Action::default();
                None
            }
            Kind::Error(message) => {
                let line = line_of(item.start);
                let mut message = message.clone();
                if action_line != 0 && action_line != line {
                    let at = if message.ends_with(" action") { "" } else { " in action" };
                    message = format!("{message}{at} started at {}:{action_line}", context.name);
                }
                Some(message)
            }
            Kind::Char(',')
                if action.state == State::Declaring && action.first == Some("range") =>
            {
                // `range $i, $v :=`: the second variable must follow.
                action.state = State::PipelineStart;
                action.after_comma = true;
                None
            }
            Kind::Char(c) => {
                if action.state == State::Declaring && *c != ',' {
                    // `$x \`: the variable is used, not declared.
                    action.check_vars = true;
                    action.state = State::AfterOperand;
                }
                let place = match action.state {
                    State::AfterOperand => "operand",
                    State::PipelineStart => action.context(),
                    State::Unknown | State::Declaring | State::Refused(_) => return None,
                };
                Some(format!("unexpected {:?} in {place}", c.to_string()))
            }
            Kind::Space => {
                action.spaced = true;
                None
            }
            kind => {
                let text = source.get(item.start..).unwrap_or_default();
                let token = source.get(item.start..item.end).unwrap_or_default();
                action.step(kind, text, token, context.is_function);
                action.note_literal(kind, token);
                match &action.state {
                    State::Unknown => return None,
                    State::Refused(message) => Some(message.clone()),
                    _ => None,
                }
            }
        };
        if let Some(message) = found {
            let clean = if action.check_vars {
                (context.clean_through)(action_start, item.start)
            } else {
                (context.clean_before)(action_start)
            };
            let (offset, message) = match clean {
                Prefix::Clean => (item.start, message),
                Prefix::Error(offset, message) => (offset, message),
                Prefix::Unknown => return None,
            };
            return Some(LexError { offset, action: action_start, line: line_of(offset), message });
        }
    }
    None
}

#[derive(Default, Clone, PartialEq, Eq)]
enum State {
    /// Where Go's parser reads the first token of a pipeline (or a keyword's argument).
    #[default]
    PipelineStart,
    /// Just after an operand: a stray token here is `in operand`.
    AfterOperand,
    /// After a variable at the start of a pipeline: only a declaration is modelled (a use
    /// may name an undeclared variable, which Go refuses first).
    Declaring,
    /// Something Go may refuse before the next token (or that this check does not model).
    Unknown,
    /// A token Go's parser refuses, with Go's message.
    Refused(String),
}

/// The parse state of the current action that decides how a stray character is worded.
#[derive(Default)]
struct Action {
    state: State,
    /// The keyword the action starts with, if any.
    first: Option<&'static str>,
    /// `else if` / `else with`: the chained keyword.
    chained: Option<&'static str>,
    /// A `define`/`template`/`block` name was read.
    named: bool,
    /// Open parentheses.
    parens: usize,
    /// Nothing but white space has been read in this action yet.
    started: bool,
    /// The last token other than white space, if it opened a pipeline.
    opener: bool,
    /// A variable was used: Go's check that it is declared must pass before this action.
    check_vars: bool,
    /// Just after the comma of `range $i, $v`.
    after_comma: bool,
    /// The last token was a literal or `.` (its text), which takes no field.
    literal: Option<String>,
    /// White space came after the last token.
    spaced: bool,
}

impl Action {
    /// One token other than white space or a stray character. `text` is the source from it.
    fn step(&mut self, kind: &Kind, text: &str, token: &str, is_function: &dyn Fn(&str) -> bool) {
        let first = !self.started;
        self.started = true;
        let spaced = std::mem::replace(&mut self.spaced, false);
        if self.state == State::Declaring && *kind != Kind::Declare {
            // Not `$x :=`: the variable is used.
            self.check_vars = true;
            self.state = State::AfterOperand;
        }
        let at_start = self.state == State::PipelineStart;
        self.opener = matches!(
            kind,
            Kind::Keyword("if" | "range" | "with") | Kind::Declare | Kind::LeftParen
        );
        let after_comma = std::mem::replace(&mut self.after_comma, false);
        let literal = std::mem::take(&mut self.literal);
        self.state = match kind {
            _ if after_comma && *kind != Kind::Variable => State::Unknown,
            Kind::Keyword(word) if first => {
                self.first = Some(word);
                match *word {
                    "if" | "range" | "with" | "else" | "define" | "template" | "block" | "end" => {
                        State::PipelineStart
                    }
                    // `break`/`continue` depend on the enclosing `range`, which this check
                    // does not follow.
                    _ => State::Unknown,
                }
            }
            Kind::Keyword(word @ ("if" | "with"))
                if self.first == Some("else") && self.chained.is_none() =>
            {
                self.chained = Some(word);
                State::PipelineStart
            }
            // `{{end}}` and a plain `{{else}}` take nothing.
            _ if matches!(self.first, Some("end"))
                || matches!(self.first, Some("else")) && self.chained.is_none() =>
            {
                State::Refused(format!("unexpected {} in {}", go_item(kind, token), self.context()))
            }
            // A template name must come first, as a string; `define` takes nothing more.
            _ if matches!(self.first, Some("define" | "template" | "block")) && !self.named => {
                self.named = true;
                if text.starts_with(['"', '`']) {
                    State::PipelineStart
                } else {
                    let message =
                        format!("unexpected {} in {}", go_item(kind, token), self.context());
                    State::Refused(message)
                }
            }
            _ if self.first == Some("define") => {
                State::Refused(format!("unexpected {} in define clause", go_item(kind, token)))
            }
            Kind::Variable if at_start && variable_len(text) == 1 => State::AfterOperand,
            Kind::Variable if at_start => State::Declaring,
            Kind::Declare if self.state == State::Declaring => State::PipelineStart,
            Kind::Declare | Kind::Pipe if at_start || self.state == State::AfterOperand => {
                let token = if *kind == Kind::Pipe { "|" } else { declare_token(text) };
                let place = if at_start { self.context() } else { "operand" };
                match kind {
                    Kind::Pipe if !at_start => State::PipelineStart,
                    _ => State::Refused(format!("unexpected {token:?} in {place}")),
                }
            }
            // A field straight after an operand extends it (`x.y`, `$.y`, `(f).y`); after a
            // literal or `.` Go refuses it.
            Kind::Operand
                if self.state == State::AfterOperand
                    && !spaced
                    && text.starts_with('.')
                    && text.get(1..).is_some_and(|t| {
                        t.starts_with(|c: char| c.is_alphabetic() || c == '_')
                    }) =>
            {
                match literal {
                    Some(term) => State::Refused(format!("unexpected . after term {term:?}")),
                    None => State::AfterOperand,
                }
            }
            // Another token straight after an operand, or a keyword out of place.
            Kind::Operand | Kind::Variable | Kind::LeftParen | Kind::Keyword(_)
                if self.state == State::AfterOperand
                    && (!spaced || matches!(kind, Kind::Keyword(_))) =>
            {
                State::Refused(format!("unexpected {} in operand", go_item(kind, token)))
            }
            Kind::Keyword(_) if at_start => {
                State::Refused(format!("unexpected {} in {}", go_item(kind, token), self.context()))
            }
            Kind::Operand
                if text.starts_with('\'')
                    && (at_start || (self.state == State::AfterOperand && spaced)) =>
            {
                match char_constant(text).map(go_char) {
                    Some(Ok(())) => State::AfterOperand,
                    Some(Err(message)) => State::Refused(message),
                    None => State::Unknown,
                }
            }
            Kind::Operand
                if (at_start || (self.state == State::AfterOperand && spaced))
                    && refused_number(token).is_some() =>
            {
                State::Refused(refused_number(token).unwrap_or_default())
            }
            Kind::Operand if at_start || (self.state == State::AfterOperand && spaced) => {
                match plain_operand(text, token, is_function) {
                    Plain::Yes => State::AfterOperand,
                    Plain::Undefined(name) => {
                        State::Refused(format!("function {name:?} not defined"))
                    }
                    Plain::No => State::Unknown,
                }
            }
            Kind::Variable if self.state == State::AfterOperand && spaced => {
                self.check_vars |= variable_len(text) > 1;
                State::AfterOperand
            }
            Kind::LeftParen if at_start || (self.state == State::AfterOperand && spaced) => {
                self.parens += 1;
                State::PipelineStart
            }
            Kind::RightParen if self.state == State::AfterOperand && self.parens > 0 => {
                self.parens -= 1;
                State::AfterOperand
            }
            Kind::Pipe if self.state == State::AfterOperand => State::PipelineStart,
            _ => State::Unknown,
        };
    }

    /// Records whether the operand just read is a literal or `.`.
    fn note_literal(&mut self, kind: &Kind, token: &str) {
        let word = token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
        let literal = *kind == Kind::Operand
            && self.state == State::AfterOperand
            && (!word || matches!(token, "true" | "false" | "nil"))
            && !(token.starts_with('.') && token.len() > 1);
        self.literal = literal.then(|| token.to_owned());
    }

    /// A `define`, `template` or `block` without its name yet.
    fn unnamed(&self) -> bool {
        matches!(self.first, Some("define" | "template" | "block")) && !self.named
    }

    /// At a pipeline's end with nothing in it: `{{}}`, `{{if}}`, `{{$x :=}}`, `()`.
    fn empty_pipeline(&self) -> bool {
        self.state == State::PipelineStart && (!self.started || self.opener)
    }

    /// The context Go's parser names for a token at the start of a pipeline here.
    fn context(&self) -> &'static str {
        if self.parens > 0 {
            return "parenthesized pipeline";
        }
        match (self.first, self.chained) {
            (_, Some(word)) => word,
            (None, _) => "command",
            (Some("template"), _) => "template clause",
            (Some("block"), _) => "block clause",
            (Some("define"), _) => "define clause",
            (Some(word), _) => word,
        }
    }
}

/// The character constant (quotes included) at the start of `text`, as Go's lexer cut it.
fn char_constant(text: &str) -> Option<&str> {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '\'' => return text.get(..=i),
            _ => {}
        }
    }
    None
}

/// Go's parser on a character constant: one character or escape (else `strconv`'s
/// `invalid syntax`), then the closing quote (else `malformed character constant`).
fn go_char(constant: &str) -> Result<(), String> {
    let inner = constant.get(1..).unwrap_or_default();
    let malformed = || format!("malformed character constant: {constant}");
    let invalid = || "invalid syntax".to_owned();
    let mut chars = inner.chars();
    let tail = match chars.next() {
        None | Some('\'') => return Err(invalid()),
        Some('\\') => {
            let rest = chars.as_str();
            let kind = rest.chars().next().ok_or_else(invalid)?;
            let after = rest.get(kind.len_utf8()..).unwrap_or_default();
            let take = |n: usize, radix: u32| -> Result<(u32, &str), String> {
                let digits = after.get(..n).ok_or_else(invalid)?;
                if !digits.chars().all(|c| c.is_digit(radix)) {
                    return Err(invalid());
                }
                let value = u32::from_str_radix(digits, radix).map_err(|_| invalid())?;
                Ok((value, after.get(n..).unwrap_or_default()))
            };
            match kind {
                'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '\\' | '\'' => after,
                'x' => take(2, 16)?.1,
                'u' | 'U' => {
                    let (value, tail) = take(if kind == 'u' { 4 } else { 8 }, 16)?;
                    char::from_u32(value).ok_or_else(invalid)?;
                    tail
                }
                '0'..='7' => {
                    let digits = rest.get(..3).ok_or_else(invalid)?;
                    if !digits.chars().all(|c| ('0'..='7').contains(&c)) {
                        return Err(invalid());
                    }
                    let value = u32::from_str_radix(digits, 8).map_err(|_| invalid())?;
                    if value > 255 {
                        return Err(invalid());
                    }
                    rest.get(3..).unwrap_or_default()
                }
                _ => return Err(invalid()),
            }
        }
        Some(_) => chars.as_str(),
    };
    if tail == "'" { Ok(()) } else { Err(malformed()) }
}

/// The length of the variable name at the start of `text` (`$` alone is 1).
fn variable_len(text: &str) -> usize {
    1 + text
        .get(1..)
        .unwrap_or_default()
        .chars()
        .take_while(|c| *c == '_' || c.is_alphanumeric())
        .map(char::len_utf8)
        .sum::<usize>()
}

enum Plain {
    Yes,
    /// An identifier that names no function (Go's parser refuses it).
    Undefined(String),
    /// Not modelled (a number Go may refuse, ...).
    No,
}

/// An operand Go's parser accepts as it stands: a known function, a field chain, `.`, a
/// boolean, `nil`, a string, or a plain decimal number.
fn plain_operand(text: &str, token: &str, is_function: &dyn Fn(&str) -> bool) -> Plain {
    if text.starts_with(['"', '`']) {
        return Plain::Yes;
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let end = unsigned
        .find(|c: char| {
            lexer::is_space(c)
                || "|()".contains(c)
                || c.is_ascii_punctuation() && c != '.' && c != '_'
        })
        .unwrap_or(unsigned.len());
    let word = unsigned.get(..end).unwrap_or_default();
    let signed = unsigned.len() < text.len();
    let plain = match word.chars().next() {
        Some('.') if !signed => {
            word == "."
                || word.get(1..).is_some_and(|w| w.starts_with(|c: char| !c.is_ascii_digit()))
        }
        Some(c) if c.is_ascii_digit() => {
            // The lexer's number token: digits with at most one `.`, no octal-looking zero.
            let number = token.strip_prefix(['-', '+']).unwrap_or(token);
            let (whole, fraction) = number.split_once('.').unwrap_or((number, "0"));
            let digits = |d: &str| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit());
            digits(whole) && digits(fraction) && (whole == "0" || !whole.starts_with('0'))
        }
        Some(_) if !signed => {
            let name = word.split('.').next().unwrap_or_default();
            if !(matches!(name, "true" | "false" | "nil") || is_function(name)) {
                return Plain::Undefined(name.to_owned());
            }
            true
        }
        _ => false,
    };
    if plain { Plain::Yes } else { Plain::No }
}

/// Go's parser message for a number token it refuses, for the clear cases only: no digits
/// after the sign or base prefix (`illegal number syntax`), and a leading-zero decimal with
/// an 8 or 9, which only `ParseFloat` accepts (`integer overflow`).
fn refused_number(token: &str) -> Option<String> {
    let unsigned = token.strip_prefix(['-', '+']).unwrap_or(token);
    let bare_prefix = matches!(unsigned, "" | "0x" | "0X" | "0b" | "0B" | "0o" | "0O");
    if bare_prefix && (unsigned.len() < token.len() || !unsigned.is_empty()) {
        return Some(format!("illegal number syntax: {token:?}"));
    }
    let octal_like = unsigned.len() > 1
        && unsigned.starts_with('0')
        && unsigned.chars().all(|c| c.is_ascii_digit())
        && unsigned.contains(['8', '9']);
    octal_like.then(|| format!("integer overflow: {token:?}"))
}

/// A token as Go's parser prints it: keywords (and `.`, `nil`) in angle brackets, other
/// values quoted, long ones cut to their first 10 characters.
fn go_item(kind: &Kind, token: &str) -> String {
    match kind {
        Kind::Keyword(word) => format!("<{word}>"),
        _ if matches!(token, "." | "nil") => format!("<{token}>"),
        _ if token.chars().count() > 10 => {
            format!("{:?}...", token.chars().take(10).collect::<String>())
        }
        _ => format!("{token:?}"),
    }
}

/// `:=` or `=`, as the declaration token at the start of `text` reads.
fn declare_token(text: &str) -> &'static str {
    if text.starts_with(':') { ":=" } else { "=" }
}

#[cfg(test)]
mod tests;
