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
use std::fmt::Write;

/// The suffix of a global that asks for launch bounds on the entry its name starts with: two
/// u32, the most threads a block and the fewest blocks an SM (what
/// `warpkit_kernels::launch_bounds!` declares; Rust has no attribute for them).
pub const BOUNDS_SUFFIX: &str = "__launch_bounds";

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

/// The launch bounds the module's globals ask for ([`BOUNDS_SUFFIX`]), by entry name: a
/// `.u32`/`.b32` array of two, or a `.b8` array of eight little-endian bytes (as LLVM writes
/// a `[u32; 2]`).
pub fn declared_bounds(ptx: &str) -> HashMap<String, (u32, u32)> {
    let mut bounds = HashMap::new();
    for line in ptx
        .lines()
        .filter(|l| l.starts_with('.') && l.contains(".global"))
    {
        let name = item_name(line);
        let Some(entry) = name.strip_suffix(BOUNDS_SUFFIX) else {
            continue;
        };
        // LLVM leaves out an initializer's trailing zeros.
        let mut values: Vec<u32> = line
            .split_once('{')
            .and_then(|(_, r)| r.split_once('}'))
            .map(|(list, _)| list.split(',').filter_map(|v| v.trim().parse().ok()).collect())
            .unwrap_or_default();
        let bytes = line.contains(".b8");
        values.resize(if bytes { 8 } else { 2 }, 0);
        let pair = match values[..] {
            [threads, blocks] if !bytes => Some((threads, blocks)),
            [a, b, c, d, e, f, g, h] if bytes => {
                let word = |x: [u32; 4]| x.iter().rev().fold(0u32, |w, &b| w << 8 | (b & 0xff));
                Some((word([a, b, c, d]), word([e, f, g, h])))
            }
            _ => None,
        };
        if let Some(pair) = pair {
            bounds.insert(entry.to_string(), pair);
        }
    }
    bounds
}

/// `ptx` with `.maxntid` and `.minnctapersm` directives in every entry that `bounds` gives
/// `(max threads, min blocks per SM)`, placed after the entry's parameter list (where PTX wants
/// them) with a comment naming `from`, and indented, so that [`Ptx::parse`] keeps them inside
/// the entry's item.
pub fn with_launch_bounds(ptx: &str, bounds: impl Fn(&str) -> Option<(u32, u32)>, from: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    // The bounds of the entry whose parameter list is still open.
    let mut open = None;
    for line in ptx.split_inclusive('\n') {
        out.push_str(line);
        if line.starts_with('.') && line.contains(".entry ") {
            let name = line.split(".entry ").nth(1).and_then(|r| r.split('(').next());
            open = name.and_then(|n| bounds(n.trim()).map(|b| (n.trim().to_string(), b)));
            if !line.contains(')') {
                continue;
            }
        } else if !line.starts_with(')') {
            continue;
        }
        if let Some((name, (threads, blocks))) = open.take() {
            let _ = writeln!(
                out,
                "\t// launch bounds of {name} ({from})\n\t.maxntid {threads}, 1, 1\n\t.minnctapersm {blocks}"
            );
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_bounds_go_into_their_entries() {
        let ptx = "\
.version 8.0
.target sm_80
.visible .global .align 4 .b8 scan_a__launch_bounds[8] = {0, 1, 0, 0, 4};
.visible .global .align 4 .u32 scan_b__launch_bounds[2] = {128, 9};
.visible .entry scan_a(
\t.param .u64 scan_a_param_0
)
{
\tret;
}
.visible .entry other()
{
\tret;
}
";
        let bounds = declared_bounds(ptx);
        assert_eq!(bounds.get("scan_a"), Some(&(256, 4)));
        assert_eq!(bounds.get("scan_b"), Some(&(128, 9)));
        assert_eq!(bounds.len(), 2);
        let out = with_launch_bounds(ptx, |e| bounds.get(e).copied(), "a test");
        let entry = out.split(".visible .entry scan_a(").nth(1).unwrap();
        let directives = entry.split('{').next().unwrap();
        assert!(directives.contains(".maxntid 256, 1, 1"), "{out}");
        assert!(directives.contains(".minnctapersm 4"), "{out}");
        let other = out.split(".visible .entry other()").nth(1).unwrap();
        assert!(!other.contains(".maxntid"), "{out}");
        // Every item keeps its name: the directives stay inside the entry's item.
        assert_eq!(Ptx::parse(&out).entries(), Ptx::parse(ptx).entries());
    }
}
