//! The email address check cert-manager's webhook makes of a Certificate's
//! `spec.emailAddresses`: Go's `net/mail.ParseAddress`, then the parsed address must be the
//! whole value. The error texts are Go's.
//!
//! Not a full RFC 5322 parser: addr-specs (dot-atom or quoted local part, dot-atom or
//! domain-literal domain), display names before an angle-addr and the group form are told
//! apart, which is what decides upstream's message for the values people write. Comments
//! (`(...)`) are not read; a value with one is refused with Go's "expected single address"
//! text.

/// Why `value` is not a bare email address, as upstream words it after
/// `invalid email address: `; `None` when it is one.
pub(crate) fn check(value: &str) -> Option<String> {
    match parse_address(value) {
        Ok(address) if address == value => None,
        Ok(_) => Some("make sure the supplied value only contains the email address itself".into()),
        Err(err) => Some(err),
    }
}

fn is_atext(c: char, dot: bool) -> bool {
    c.is_ascii_alphanumeric()
        || "!#$%&'*+-/=?^_`{|}~".contains(c)
        || (dot && c == '.')
        || !c.is_ascii()
}

struct Parser<'a> {
    s: &'a str,
}

impl<'a> Parser<'a> {
    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }
    fn peek(&self) -> Option<char> {
        self.s.chars().next()
    }
    fn consume(&mut self, c: char) -> bool {
        match self.s.strip_prefix(c) {
            Some(rest) => {
                self.s = rest;
                true
            }
            None => false,
        }
    }

    /// A dot-atom (`dot` allows the dots anywhere, as Go's permissive phrase atoms do).
    fn atom(&mut self, dot: bool) -> Option<&'a str> {
        let end = self.s.find(|c: char| !is_atext(c, dot)).unwrap_or(self.s.len());
        if end == 0 {
            return None;
        }
        let (atom, rest) = self.s.split_at(end);
        self.s = rest;
        Some(atom)
    }

    /// A quoted string, without its quotes and with its escapes removed.
    fn quoted(&mut self) -> Result<String, String> {
        let mut out = String::new();
        let mut chars = self.s.char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.s = &self.s[i + 1..];
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                },
                c if c == '\t' || c == ' ' || (!c.is_ascii_control() && c != '\u{7f}') => {
                    out.push(c)
                }
                _ => return Err(format!("mail: bad character in quoted-string: {c:?}")),
            }
        }
        Err("mail: unclosed quoted-string".into())
    }

    /// `local@domain`, or the reason it is not one (the input is then left as it was).
    fn addr_spec(&mut self) -> Result<String, String> {
        let start = self.s;
        let result = self.addr_spec_inner();
        if result.is_err() {
            self.s = start;
        }
        result
    }

    fn addr_spec_inner(&mut self) -> Result<String, String> {
        self.skip_space();
        let local = if self.peek() == Some('"') {
            self.quoted()?
        } else {
            let atom = self.atom(true).ok_or("mail: invalid string")?;
            if atom.starts_with('.') || atom.ends_with('.') || atom.contains("..") {
                return Err("mail: invalid string".into());
            }
            atom.to_owned()
        };
        if !self.consume('@') {
            return Err("mail: missing @ in addr-spec".into());
        }
        self.skip_space();
        let domain = if self.peek() == Some('[') {
            let end = self.s.find(']').ok_or("mail: unclosed domain-literal")?;
            let literal = &self.s[..=end];
            self.s = &self.s[end + 1..];
            literal.to_owned()
        } else {
            let atom = self.atom(true).ok_or("mail: no domain in addr-spec")?;
            if atom.starts_with('.') || atom.ends_with('.') || atom.contains("..") {
                return Err("mail: invalid string".into());
            }
            atom.to_owned()
        };
        Ok(format!("{local}@{domain}"))
    }

    /// A display name: words (atoms or quoted strings) separated by spaces.
    fn phrase(&mut self) -> Result<String, String> {
        let mut words = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some('"') => words.push(self.quoted()?),
                _ => match self.atom(true) {
                    Some(atom) => words.push(atom.to_owned()),
                    None => break,
                },
            }
        }
        if words.is_empty() {
            return Err("mail: missing word in phrase: mail: invalid string".into());
        }
        Ok(words.join(" "))
    }
}

fn parse_address(value: &str) -> Result<String, String> {
    let mut p = Parser { s: value };
    p.skip_space();
    if p.s.is_empty() {
        return Err("mail: no address".into());
    }
    let address = match p.addr_spec() {
        Ok(spec) => spec,
        Err(_) => {
            let name = if p.peek() == Some('<') { String::new() } else { p.phrase()? };
            p.skip_space();
            if p.consume(':') {
                // A group: Go parses its addresses, then wants `,` or `;` after each.
                p.skip_space();
                if p.consume(';') {
                    return Err("mail: no address".into());
                }
                p.addr_spec()?;
                p.skip_space();
                return Err(if p.consume(';') {
                    "mail: no address".into()
                } else {
                    "mail: expected comma".into()
                });
            }
            if !p.consume('<') {
                return Err(if name.chars().all(|c| is_atext(c, true)) {
                    "mail: missing '@' or angle-addr".into()
                } else {
                    "mail: no angle-addr".into()
                });
            }
            let spec = p.addr_spec()?;
            if !p.consume('>') {
                return Err("mail: unclosed angle-addr".into());
            }
            spec
        }
    };
    p.skip_space();
    if !p.s.is_empty() {
        return Err(format!("mail: expected single address, got {:?}", p.s));
    }
    Ok(address)
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn upstreams_cases() {
        // certificate_test.go's three email cases, and the plain valid one.
        assert_eq!(check("alice@example.com"), None);
        assert_eq!(check("alice.example.com").as_deref(), Some("mail: missing '@' or angle-addr"));
        assert_eq!(
            check("Alice <alice@example.com>").as_deref(),
            Some("make sure the supplied value only contains the email address itself")
        );
        assert_eq!(check("mailto:alice@example.com").as_deref(), Some("mail: expected comma"));
    }

    #[test]
    fn other_shapes() {
        assert_eq!(check("").as_deref(), Some("mail: no address"));
        assert_eq!(check("   ").as_deref(), Some("mail: no address"));
        assert_eq!(check("a.b+tag@sub.example.org"), None);
        assert_eq!(
            check("\"quoted local\"@example.org").as_deref(),
            Some("make sure the supplied value only contains the email address itself")
        );
        assert_eq!(check("Alice Smith").as_deref(), Some("mail: no angle-addr"));
        assert_eq!(check("<alice@example.com").as_deref(), Some("mail: unclosed angle-addr"));
        assert_eq!(
            check("alice@example.com bob").as_deref(),
            Some("mail: expected single address, got \"bob\"")
        );
        assert!(check("alice@").is_some());
        assert!(check("@example.com").is_some());
        assert!(check("\"unclosed@example.com").is_some());
    }
}
