//! Aligned plain-text tables in the style of `kubectl get` (three spaces between columns,
//! no truncation), with optional ANSI colour on single cells and indented detail lines under
//! a row.

use std::borrow::Cow;
use std::io::{self, Write};

/// ANSI colours used for decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    Green,
    Red,
    Yellow,
    Magenta,
}

impl Colour {
    fn code(self) -> &'static str {
        match self {
            Colour::Green => "\x1b[32m",
            Colour::Red => "\x1b[31m",
            Colour::Yellow => "\x1b[33m",
            Colour::Magenta => "\x1b[35m",
        }
    }
}

const RESET: &str = "\x1b[0m";
const GAP: &str = "   ";
const DETAIL_INDENT: &str = "    ";

/// One table cell.
pub struct Cell {
    text: String,
    colour: Option<Colour>,
}

impl Cell {
    pub fn plain(text: &str) -> Self {
        Cell { text: sanitize(text).into_owned(), colour: None }
    }
    pub fn coloured(text: &str, colour: Colour) -> Self {
        Cell { text: sanitize(text).into_owned(), colour: Some(colour) }
    }
    fn width(&self) -> usize {
        self.text.chars().count()
    }
}

struct Row {
    cells: Vec<Cell>,
    details: Vec<String>,
}

pub struct Table {
    header: Vec<Cell>,
    rows: Vec<Row>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Table { header: header.iter().map(|h| Cell::plain(h)).collect(), rows: Vec::new() }
    }

    /// Adds a row; `details` is printed under it, indented, one line per line of text.
    pub fn row(&mut self, cells: Vec<Cell>, details: Option<&str>) {
        let details = details
            .map(|text| text.lines().map(|line| sanitize(line).into_owned()).collect())
            .unwrap_or_default();
        self.rows.push(Row { cells, details });
    }

    pub fn write(&self, out: &mut dyn Write, colour: bool) -> io::Result<()> {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(Cell::width).collect();
        for row in &self.rows {
            for (width, cell) in widths.iter_mut().zip(&row.cells) {
                *width = (*width).max(cell.width());
            }
        }
        write_line(out, &self.header, &widths, columns, colour)?;
        for row in &self.rows {
            write_line(out, &row.cells, &widths, columns, colour)?;
            for line in &row.details {
                writeln!(out, "{DETAIL_INDENT}{line}")?;
            }
        }
        Ok(())
    }
}

/// Padding goes between columns only: trailing spaces are trimmed, so lines never end in
/// blanks even when the last cell is empty.
fn write_line(
    out: &mut dyn Write,
    cells: &[Cell],
    widths: &[usize],
    columns: usize,
    colour: bool,
) -> io::Result<()> {
    let mut line = String::new();
    for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
        match (cell.colour, colour) {
            (Some(c), true) => {
                line.push_str(c.code());
                line.push_str(&cell.text);
                line.push_str(RESET);
            }
            _ => line.push_str(&cell.text),
        }
        if i + 1 < columns {
            line.extend(std::iter::repeat_n(' ', width.saturating_sub(cell.width())));
            line.push_str(GAP);
        }
    }
    writeln!(out, "{}", line.trim_end_matches(' '))
}

/// Escapes control characters, so that names and messages taken from input files cannot
/// move the cursor, recolour the terminal or break the table's lines.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(table: &Table, colour: bool) -> String {
        let mut out = Vec::new();
        table.write(&mut out, colour).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn aligns_columns_without_trailing_spaces_and_indents_details() {
        let mut table = Table::new(&["NAME", "DECISION", "MESSAGE"]);
        table.row(
            vec![Cell::plain("a-long-name"), Cell::plain("Denied"), Cell::plain("m1")],
            Some("line 1\nline 2"),
        );
        table.row(vec![Cell::plain("b"), Cell::plain("Approved"), Cell::plain("")], None);
        assert_eq!(
            render(&table, false),
            "NAME          DECISION   MESSAGE\n\
             a-long-name   Denied     m1\n    line 1\n    line 2\n\
             b             Approved\n"
        );
    }

    #[test]
    fn colours_only_when_asked_and_pads_by_visible_width() {
        let mut table = Table::new(&["D", "M"]);
        table.row(vec![Cell::coloured("Ok", Colour::Green), Cell::plain("x")], None);
        assert_eq!(render(&table, false), "D    M\nOk   x\n");
        assert_eq!(render(&table, true), "D    M\n\x1b[32mOk\x1b[0m   x\n");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\x1b[31mb\nc"), "a\\u{1b}[31mb\\nc");
        assert!(matches!(sanitize("plain ünïcode"), Cow::Borrowed(_)));
    }
}
