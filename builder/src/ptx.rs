//! Cuts one PTX module into smaller ones, each holding a chosen set of entry points and exactly
//! the functions and globals they reach. Every item's text is copied unchanged, so an entry's
//! PTX in a piece is byte for byte its PTX in the whole.
//!
//! LLVM's PTX is a header (`.version`, `.target`, `.address_size`, file-scope assembly such as
//! the dynamic shared-memory declaration) followed by top-level items that each start on a line
//! beginning with a directive: `.func` prototypes and bodies, `.entry` bodies, `.global` and
//! `.const` variables. Lines inside a body are indented, so a directive in column 0 starts the
//! next item.

use std::collections::{BTreeSet, HashMap};

/// Directives that stay in every piece: the module header.
const HEADER_DIRECTIVES: [&str; 4] = [".version", ".target", ".address_size", ".extern .shared"];

/// One top-level item: its name and its text (up to the next item).
struct Item<'a> {
    name: &'a str,
    is_entry: bool,
    text: &'a str,
}

/// A PTX module as its header and top-level items, in order.
pub struct Ptx<'a> {
    header: String,
    items: Vec<Item<'a>>,
    /// Item indices by name (a function may have a prototype and a body).
    by_name: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Ptx<'a> {
    pub fn parse(text: &'a str) -> Ptx<'a> {
        let mut header = String::new();
        let mut starts = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let is_directive = line.starts_with('.');
            if is_directive && HEADER_DIRECTIVES.iter().any(|d| line.starts_with(d)) {
                header.push_str(line);
            } else if is_directive {
                starts.push(offset);
            } else if starts.is_empty() {
                header.push_str(line);
            }
            offset += line.len();
        }
        starts.push(text.len());
        let mut items = Vec::new();
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for w in starts.windows(2) {
            let text = &text[w[0]..w[1]];
            let first = text.lines().next().unwrap_or_default();
            let name = item_name(text);
            by_name.entry(name).or_default().push(items.len());
            items.push(Item {
                name,
                is_entry: first.contains(".entry"),
                text,
            });
        }
        Ptx {
            header,
            items,
            by_name,
        }
    }

    /// Names of the entry points, sorted.
    pub fn entries(&self) -> BTreeSet<&'a str> {
        self.items.iter().filter(|i| i.is_entry).map(|i| i.name).collect()
    }

    /// A module of the entries `keep` accepts and every item they reach, in the original order.
    pub fn piece(&self, keep: impl Fn(&str) -> bool) -> String {
        let mut wanted = vec![false; self.items.len()];
        let mut stack: Vec<usize> = (0..self.items.len())
            .filter(|&i| self.items[i].is_entry && keep(self.items[i].name))
            .collect();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut wanted[i], true) {
                continue;
            }
            for word in identifiers(self.items[i].text) {
                for &j in self.by_name.get(word).into_iter().flatten() {
                    if !wanted[j] && !self.items[j].is_entry {
                        stack.push(j);
                    }
                }
            }
        }
        let mut out = self.header.clone();
        for (item, _) in self.items.iter().zip(&wanted).filter(|(_, w)| **w) {
            out.push_str(item.text);
        }
        out
    }
}

/// The name an item declares: the identifier after `.entry` or `.func` (past a return-value
/// list), or a variable's name (before its `[`, `=` or `;`).
fn item_name(text: &str) -> &str {
    let decl = text.split('\n').next().unwrap_or_default();
    if let Some(pos) = decl.find(".entry").or_else(|| decl.find(".func")) {
        let rest = decl[pos..].split_once(char::is_whitespace).map_or("", |(_, r)| r);
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('(') {
            // `.func (.param .b32 retval) name`: skip the return list.
            Some(r) => r.split_once(')').map_or("", |(_, r)| r).trim_start(),
            None => rest,
        };
        return identifiers(rest).next().unwrap_or_default();
    }
    let decl = decl.split(['[', '=', ';']).next().unwrap_or_default();
    decl.split_whitespace().last().unwrap_or_default()
}

/// The PTX identifiers in `text` (letters, digits, `_` and `$`, not starting with a digit).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$'))
}
