//! Generated YAML documents for the decode comparison.
//!
//! A document is drawn from one `u64` (proptest supplies it, so a seed fixes the corpus) by a
//! small hand-written grammar walk: writing YAML text with deliberately odd layout is much
//! simpler as a recursive writer than as composed strategies, and the case printed for a
//! mismatch is the text itself. The grammar leans on what hub templates produce and on the
//! constructs where YAML readers disagree: block scalar headers and trailing lines, folded
//! multi-line plain and quoted scalars (continuation lines at every indentation, including
//! less than the parent's), indentless sequences, tabs, anchors/aliases/merges, tags, comments,
//! document markers and the YAML 1.1 / 1.2 scalar forms yaml.v3 resolves its own way.

/// splitmix64: tiny, deterministic, good enough to pick grammar branches.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True with `percent` % probability.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Plain scalars covering yaml.v3's resolution table and its YAML 1.1 leftovers.
pub const PLAIN_ATOMS: &[&str] = &[
    "a",
    "hello world",
    "x-y_z",
    "1",
    "-2",
    "+1",
    "0",
    "-0",
    "00",
    "017",
    "08",
    "0o17",
    "0o8",
    "0x1F",
    "0x",
    "-0x1F",
    "0b101",
    "1_000",
    "1__0",
    "1.5",
    ".5",
    "-.5",
    "5.",
    "1e3",
    "1E3",
    "1e+3",
    "1.0e-3",
    "1e400",
    "-1e400",
    "+.inf",
    ".inf",
    "-.Inf",
    ".NaN",
    ".nan",
    "NaN",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "1:20",
    "190:20:30",
    "true",
    "True",
    "TRUE",
    "tRue",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "Yes",
    "OFF",
    "null",
    "Null",
    "NULL",
    "~",
    "2015-01-01",
    "2015-02-24 18:19:39.5",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5",
    "2015-2-3T3:4:5Z",
    "2015-02-30",
    "1900-01-01T00:00:00Z",
    "héllo",
    "日本",
    "a:b",
    "a#b",
    "-a",
    "?x",
    "x?",
    "http://x.io/a?b=c#d",
    "{{ fromSecret \"a\" \"b\" }}",
    "=",
    "!a",
    "@x",
];

/// Key texts: plain, quoted, odd ones and keys that do not decode as Go strings.
const KEYS: &[&str] = &[
    "a",
    "b",
    "name",
    "spec",
    "key with spaces",
    "'quoted'",
    "\"dq\"",
    "\"\"",
    "''",
    "1",
    "true",
    "null",
    "~",
    "1.5",
    "é",
    "<<",
    "'<<'",
    "x.y/z",
    "-k",
    "\"a\\nb\"",
    "[1, 2]",
    "{a: b}",
    "? c",
    "0o17",
    "yes",
];

/// Words for multi-line scalars: include ones that change meaning at a line start.
const WORDS: &[&str] = &[
    "w",
    "two words",
    "#not",
    "- x",
    "a: b",
    "'",
    "\\",
    "\\t",
    "\\n",
    "\\x41",
    "\\u00e9",
    "é",
    "  lead",
    "trail  ",
    "",
    "---",
    "...",
    "x\t",
    "\"",
    "''",
    "%",
    "1",
];

pub struct Doc {
    rng: Rng,
    out: String,
    anchors: usize,
    budget: usize,
}

/// One generated document text.
pub fn document(seed: u64) -> String {
    let mut d = Doc { rng: Rng::new(seed), out: String::new(), anchors: 0, budget: 24 };
    d.preamble();
    match d.rng.below(10) {
        0..=5 => d.block_mapping(0),
        6..=7 => d.block_sequence(0),
        8 => {
            d.inline_value(0);
            d.out.push('\n');
        }
        _ => {
            let text = d.flow(0, true);
            d.out.push_str(&text);
            d.out.push('\n');
        }
    }
    d.postamble();
    d.out
}

impl Doc {
    fn preamble(&mut self) {
        match self.rng.below(12) {
            0 => self.out.push_str("# leading comment\n"),
            1 => self.out.push_str("---\n"),
            2 => self.out.push_str("--- # c\n"),
            3 => self.out.push_str("%YAML 1.1\n---\n"),
            4 => self.out.push_str("\n\n"),
            _ => {}
        }
    }

    fn postamble(&mut self) {
        match self.rng.below(12) {
            0 => self.out.push_str("...\n"),
            1 => self.out.push_str("---\nsecond: doc\n"),
            2 => self.out.push_str("\n\n\n"),
            3 => self.out.push_str("# trailing comment"),
            4 => self.out.push_str("  \n \n"),
            5 => {
                // No final line break.
                self.out.pop();
            }
            _ => {}
        }
    }

    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    fn indent(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push(' ');
        }
    }

    /// How far children are indented: mostly 2, sometimes 1, 3, 4 or a tab-containing run.
    fn step(&mut self) -> usize {
        *self.rng.pick(&[2, 2, 2, 1, 3, 4])
    }

    fn comment(&mut self) {
        if self.rng.chance(8) {
            const COMMENTS: &[&str] = &[" # c", "  #c: x", " #", "\t# tab"];
            let comment = self.rng.pick(COMMENTS);
            self.out.push_str(comment);
        }
    }

    fn key(&mut self, at: usize) -> String {
        if self.rng.chance(2) {
            // Around yaml.v3's 1024-character simple key limit.
            return "k".repeat(*self.rng.pick(&[1020, 1024, 1025, 1030]));
        }
        // Mostly ordinary keys, so that most documents decode and their values are compared.
        let key = if self.rng.chance(75) {
            (*self.rng.pick(&["a", "b", "name", "spec", "key with spaces", "é", "x.y/z", "c1"]))
                .to_owned()
        } else {
            (*self.rng.pick(KEYS)).to_owned()
        };
        if key == "<<" {
            if self.anchors == 0 {
                return "m".to_owned();
            }
            return key;
        }
        if key == "? c" {
            // An explicit key needs its own value line.
            return format!("? c\n{}", " ".repeat(at));
        }
        key
    }

    fn block_mapping(&mut self, at: usize) {
        let entries = 1 + self.rng.below(4);
        for i in 0..entries {
            if i > 0 || !self.out.ends_with(' ') {
                // A compact mapping in a sequence item starts on the item's line.
                if !(i == 0 && self.out.ends_with("- ")) {
                    self.indent(at);
                }
            }
            let key = self.key(at);
            self.out.push_str(&key);
            self.out.push(':');
            if key == "<<" {
                let a = self.rng.below(self.anchors);
                match self.rng.below(3) {
                    0 => self.out.push_str(&format!(" *a{a}")),
                    1 => {
                        self.out.push_str(&format!(" [*a{a}, *a{}]", self.rng.below(self.anchors)))
                    }
                    _ => self.out.push_str(" {z: 9}"),
                }
                self.comment();
                self.out.push('\n');
                continue;
            }
            self.value(at);
            if self.rng.chance(4) {
                self.out.push('\n');
            }
        }
    }

    /// A mapping value or sequence item after `key:` / `-`, with the parent at column `at`.
    fn value(&mut self, at: usize) {
        if !self.spend() {
            self.out.push(' ');
            let atom = *self.rng.pick(PLAIN_ATOMS);
            self.out.push_str(atom);
            self.out.push('\n');
            return;
        }
        let props = self.properties();
        let collection_props = props.is_empty() || !props.starts_with('*');
        match self.rng.below(12) {
            0..=4 => {
                self.out.push(' ');
                self.out.push_str(&props);
                self.inline_value(at);
                self.comment();
                self.out.push('\n');
            }
            5..=6 => {
                self.out.push(' ');
                self.out.push_str(&props);
                self.block_scalar(at);
            }
            7..=8 if collection_props => {
                if !props.is_empty() {
                    self.out.push(' ');
                    self.out.push_str(props.trim_end());
                }
                self.comment();
                self.out.push('\n');
                let inner = at + self.step();
                self.block_mapping(inner);
            }
            9..=10 if collection_props => {
                if !props.is_empty() {
                    self.out.push(' ');
                    self.out.push_str(props.trim_end());
                }
                self.out.push('\n');
                // Indentless sequences under a key are common in Kubernetes YAML.
                let inner = if self.rng.chance(40) { at } else { at + self.step() };
                self.block_sequence(inner);
            }
            _ => {
                self.out.push(' ');
                self.out.push_str(&props);
                let multi = self.rng.chance(30);
                let text = self.flow(at, multi);
                self.out.push_str(&text);
                self.comment();
                self.out.push('\n');
            }
        }
    }

    /// Anchor, tag or alias text (with a trailing space), or nothing.
    fn properties(&mut self) -> String {
        let mut text = String::new();
        if self.rng.chance(8) {
            text.push_str(&format!("&a{} ", self.anchors));
            self.anchors += 1;
        }
        if self.rng.chance(8) {
            let tag = self.rng.pick(&[
                "!!str",
                "!!int",
                "!!float",
                "!!bool",
                "!!null",
                "!!binary",
                "!!timestamp",
                "!!map",
                "!!seq",
                "!custom",
                "!",
                "!<tag:yaml.org,2002:str>",
            ]);
            text.push_str(tag);
            text.push(' ');
        }
        text
    }

    fn block_sequence(&mut self, at: usize) {
        let items = 1 + self.rng.below(3);
        for i in 0..items {
            if !(i == 0 && self.out.ends_with("- ")) {
                self.indent(at);
            }
            self.out.push('-');
            if self.spend() && self.rng.chance(25) {
                match self.rng.below(3) {
                    0 => {
                        // Compact mapping on the item's line.
                        self.out.push(' ');
                        self.block_mapping(at + 2);
                    }
                    1 => {
                        // Compact nested sequence.
                        self.out.push(' ');
                        self.block_sequence(at + 2);
                    }
                    _ => {
                        if self.anchors > 0 && self.rng.chance(50) {
                            let a = self.rng.below(self.anchors);
                            self.out.push_str(&format!(" *a{a}\n"));
                        } else {
                            self.out.push('\n');
                            let inner = at + self.step();
                            self.block_mapping(inner);
                        }
                    }
                }
            } else {
                self.value(at);
            }
        }
    }

    /// A scalar on the current line (its continuation lines indented relative to `at`).
    fn inline_value(&mut self, at: usize) {
        match self.rng.below(10) {
            0..=3 => {
                let atom = self.rng.pick(PLAIN_ATOMS);
                self.out.push_str(atom);
            }
            4 => {
                if self.anchors > 0 {
                    let a = self.rng.below(self.anchors);
                    self.out.push_str(&format!("*a{a}"));
                } else {
                    self.out.push_str("''");
                }
            }
            5 => self.multi_line(at, None),
            6..=7 => self.multi_line(at, Some('\'')),
            _ => self.multi_line(at, Some('"')),
        }
    }

    /// A plain or quoted scalar over one or more lines; continuation lines get every kind of
    /// indentation, including none at all and less than the parent's.
    fn multi_line(&mut self, at: usize, quote: Option<char>) {
        if let Some(q) = quote {
            self.out.push(q);
        }
        let lines = 1 + self.rng.below(4);
        for line in 0..lines {
            if line > 0 {
                if self.rng.chance(20) {
                    // An empty line keeps a line break when folding.
                    self.out.push('\n');
                    if self.rng.chance(30) {
                        self.out.push_str("  ");
                    }
                }
                self.out.push('\n');
                let extra = match quote {
                    // A plain continuation must be indented past the parent.
                    None => at + 1 + self.rng.below(3),
                    Some(_) => *self.rng.pick(&[0, at, at + 1, at + 2, at.saturating_sub(1), 1]),
                };
                self.indent(extra);
                if self.rng.chance(5) {
                    self.out.push('\t');
                }
            }
            let word = self.rng.pick(WORDS);
            match quote {
                None => {
                    // Plain scalars cannot hold these at all; keep them simple words.
                    let w = if line == 0 { "first" } else { "more words" };
                    self.out.push_str(if self.rng.chance(70) { w } else { "x" });
                }
                Some('\'') => self.out.push_str(&word.replace('\'', "''")),
                Some(_) => {
                    let w = word.replace('"', "\\\"");
                    self.out.push_str(&w);
                    if self.rng.chance(10) {
                        // Escaped line break: joins without a space.
                        self.out.push('\\');
                    }
                }
            }
        }
        if let Some(q) = quote {
            self.out.push(q);
        }
    }

    /// `|` or `>` with every header form, the body at a chosen indentation and trailing lines.
    fn block_scalar(&mut self, at: usize) {
        let style = *self.rng.pick(&['|', '>']);
        let chomp = *self.rng.pick(&["", "-", "+"]);
        let step = 1 + self.rng.below(3);
        let explicit = self.rng.chance(25);
        self.out.push(style);
        if explicit {
            // An explicit indentation indicator, before or after the chomping indicator.
            if self.rng.chance(50) {
                self.out.push_str(&format!("{step}{chomp}"));
            } else {
                self.out.push_str(&format!("{chomp}{step}"));
            }
        } else {
            self.out.push_str(chomp);
        }
        self.comment();
        self.out.push('\n');
        let body = at + step;
        let lines = self.rng.below(5);
        if lines > 0 && self.rng.chance(15) {
            // Leading empty lines (before the first content line decides the indentation).
            self.out.push_str(if self.rng.chance(50) { "\n" } else { "   \n" });
        }
        for i in 0..lines {
            let deeper = self.rng.chance(20);
            let first_deeper = i == 0 && deeper && !explicit;
            self.indent(body);
            if deeper && !first_deeper {
                let more = 1 + self.rng.below(3);
                self.indent(more);
            }
            if self.rng.chance(5) {
                self.out.push('\t');
            }
            let word = self.rng.pick(&["text", "a b", "# not a comment", "x: y", "- z", "é"]);
            self.out.push_str(word);
            if self.rng.chance(10) {
                self.out.push_str("  ");
            }
            self.out.push('\n');
            if self.rng.chance(15) {
                self.out.push('\n');
            }
        }
        // Trailing blank lines, possibly with spaces (more or fewer than the body's).
        for _ in 0..self.rng.below(3) {
            let spaces = *self.rng.pick(&[0, 1, body, body + 2]);
            self.indent(spaces);
            self.out.push('\n');
        }
    }

    /// A flow collection, on one line or spread over several.
    fn flow(&mut self, at: usize, multi_line: bool) -> String {
        let mut text = String::new();
        self.flow_node(&mut text, at, multi_line, 0);
        text
    }

    fn flow_node(&mut self, text: &mut String, at: usize, multi: bool, depth: usize) {
        let mapping = self.rng.chance(50);
        text.push(if mapping { '{' } else { '[' });
        let n = self.rng.below(4);
        for i in 0..n {
            if i > 0 {
                text.push(',');
            }
            if multi && self.rng.chance(40) {
                text.push('\n');
                text.push_str(&" ".repeat(at + 1));
            } else if i > 0 || self.rng.chance(50) {
                text.push(' ');
            }
            if mapping || self.rng.chance(20) {
                let key = self.rng.pick(&["a", "b", "'q'", "\"d\"", "1", "x y", "c"]);
                text.push_str(key);
                text.push_str(if self.rng.chance(80) { ": " } else { ":" });
            }
            if depth < 2 && self.rng.chance(25) {
                self.flow_node(text, at, multi, depth + 1);
            } else {
                let atom = self.rng.pick(&[
                    "1",
                    "x",
                    "'s p'",
                    "\"d\\tq\"",
                    "true",
                    "~",
                    "",
                    "1.5",
                    "a b",
                    "0x10",
                    "yes",
                    "-1",
                    "\"\"",
                    "http://a",
                ]);
                text.push_str(atom);
            }
        }
        if n > 0 && self.rng.chance(15) {
            text.push(',');
        }
        text.push(if mapping { '}' } else { ']' });
    }
}
