//! The one output convention of the commands that print records: `--format json|table|csv`.
//!
//! - `json`: the core's answer, pretty-printed (an array for lists).
//! - `table`: a header row and one row per record, columns padded to the widest cell.
//! - `csv`: the same header and rows, RFC 4180 (the `csv` crate).
//!
//! Cells are the text of JSON values: strings without quotes, `null` empty, numbers and
//! booleans as JSON writes them, arrays and objects as compact JSON. Standard output that a
//! reader closes early (`| head`) is not an error.

use clap::ValueEnum;
use platform_core::{Error, Result};
use serde_json::Value;
use std::io::Write as _;

/// How a command prints records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The answer as JSON.
    Json,
    /// Aligned columns with a header row.
    Table,
    /// Comma-separated values with a header row.
    Csv,
}

/// Rows under a header, printed as a table or as CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names (printed upper-case in tables, as given in CSV).
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// The columns of `records` at these field paths (dotted for nested fields), one row each.
    pub fn of(records: &[Value], columns: &[&str]) -> Table {
        let mut t = Table::new(columns);
        for r in records {
            t.push(columns.iter().map(|c| text(lookup(r, c))).collect());
        }
        t
    }

    /// Every top-level field the records hold, in order of first appearance.
    pub fn of_all(records: &[Value]) -> Table {
        let mut columns: Vec<&str> = Vec::new();
        for r in records {
            for k in r.as_object().into_iter().flat_map(|m| m.keys()) {
                if !columns.contains(&k.as_str()) {
                    columns.push(k);
                }
            }
        }
        Table::of(records, &columns)
    }

    /// The same rows under other column names (as many as there are columns).
    pub fn renamed(mut self, header: &[&str]) -> Table {
        self.header = header.iter().map(|h| h.to_string()).collect();
        self
    }

    /// Adds a row (missing cells are empty).
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// The aligned text: the header upper-case, then the rows; the last column is not padded.
    pub fn text(&self) -> String {
        let header: Vec<String> = self.header.iter().map(|h| h.to_uppercase()).collect();
        let n = self.header.len();
        let mut widths = vec![0; n];
        for row in std::iter::once(&header).chain(&self.rows) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = row.get(i).map_or("", String::as_str);
                // One line a row: line breaks inside a cell print as spaces.
                let cell = cell.replace(['\n', '\r'], " ");
                if i + 1 < n {
                    line.push_str(&format!("{cell:<width$}  "));
                } else {
                    line.push_str(&cell);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// The CSV text: the header as given, then the rows.
    pub fn csv(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let n = self.header.len();
        let _ = w.write_record(&self.header);
        for row in &self.rows {
            let cells: Vec<&str> = (0..n)
                .map(|i| row.get(i).map_or("", String::as_str))
                .collect();
            let _ = w.write_record(&cells);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// Prints an answer: `json` as it is, `table` and `csv` from the table `rows` makes of it;
/// `footer` (counts, notes) follows a table on standard output and goes to standard error
/// with CSV, so CSV stays one header and its rows.
pub fn print(
    format: Format,
    answer: &Value,
    rows: impl FnOnce() -> Table,
    footer: &str,
) -> Result<()> {
    match format {
        Format::Json => print_json(answer),
        Format::Table => write_out(&format!("{}{footer}", rows().text())),
        Format::Csv => {
            if !footer.is_empty() {
                eprint!("{footer}");
            }
            write_out(&rows().csv())
        }
    }
}

/// Prints a list of records: json as an array, table and csv with these columns (every field
/// when `columns` is empty).
pub fn print_records(format: Format, records: &[Value], columns: &[&str]) -> Result<()> {
    let table = || {
        if columns.is_empty() {
            Table::of_all(records)
        } else {
            Table::of(records, columns)
        }
    };
    print(format, &Value::Array(records.to_vec()), table, "")
}

/// A JSON value as cell text (strings without quotes, null empty).
pub fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The value at a dotted path.
fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, seg| v.get(seg))
}

/// Pretty JSON and a line break.
pub fn print_json(v: &Value) -> Result<()> {
    write_out(&(serde_json::to_string_pretty(v).unwrap_or_default() + "\n"))
}

/// Writes to standard output; a reader that stops early (`| head`) is not an error.
pub fn write_out(text: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Internal(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_have_a_header_and_pad_all_but_the_last_column() {
        let records = [
            json!({"point": "2024-07-01", "status": "valid", "message": "all passed"}),
            json!({"point": "2024-07-10", "status": "severe", "message": null}),
        ];
        let t = Table::of(&records, &["point", "status", "message"]);
        assert_eq!(
            t.text(),
            "POINT       STATUS  MESSAGE\n2024-07-01  valid   all passed\n2024-07-10  severe\n"
        );
        assert_eq!(
            t.csv(),
            "point,status,message\n2024-07-01,valid,all passed\n2024-07-10,severe,\n"
        );
    }

    #[test]
    fn cells_are_text_and_csv_quotes_what_it_must() {
        let records = [
            json!({"_id": "A", "n": 1.5, "tags": ["x", "y"], "meta": {"tier": 2}, "note": "a, \"b\"\nc"}),
            json!({"_id": "B", "extra": true}),
        ];
        let t = Table::of_all(&records);
        assert_eq!(
            t.csv(),
            "_id,n,tags,meta,note,extra\nA,1.5,\"[\"\"x\"\",\"\"y\"\"]\",\"{\"\"tier\"\":2}\",\"a, \"\"b\"\"\nc\",\nB,,,,,true\n"
        );
        assert!(t.text().lines().nth(1).unwrap().ends_with("a, \"b\" c"));
        let nested = Table::of(&records, &["meta.tier", "missing"]);
        assert_eq!(nested.csv(), "meta.tier,missing\n2,\n,\n");
    }
}
