//! The areas kernels belong to. Each area becomes a GPU module of its own, which the host loads
//! the first time one of its kernels is launched on a device, so opening a GPU loads nothing
//! and a program pays only for the areas it calls.
//!
//! A kernel's area follows from its entry name (`<area>_<variant>`) through [`PREFIXES`]. The
//! host's build script includes this file too and cuts the PTX along the same lines, so the
//! list is written once. A new area is one variant, one name and its prefixes here.

/// A group of kernels loaded together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Area {
    /// Grid-wide scan, reduce, copy and the Philox fill: what every other area builds on.
    Grid,
    /// Kernels that exist for tests and tuning only: warp and block levels, SIMT checks, math
    /// checks, scan tuning variants.
    Checks,
    /// Alias tables: construction and sampling.
    Alias,
    /// Multisplit: histogram, bounds and the scatter variants.
    Multisplit,
    /// Random K-subsets: the sampling kernels of every team shape.
    Subset,
    /// Banded convolution: the paper's kernels, the band kernel and its slice sums.
    Convolve,
    /// One-pass moments: partial summaries and their combine.
    Moments,
    /// Local binary pattern histograms.
    Lbp,
    /// Self-organizing maps: best-matching units.
    Som,
}

/// Entry-name prefixes and their areas; the first that matches wins.
pub const PREFIXES: &[(&str, Area)] = &[
    ("scan_tuning_", Area::Checks),
    ("scan_", Area::Grid),
    ("reduce_", Area::Grid),
    ("copy_", Area::Grid),
    ("philox_", Area::Grid),
    ("warp_", Area::Checks),
    ("block_", Area::Checks),
    ("simt_check_", Area::Checks),
    ("math_check_", Area::Checks),
    ("alias_", Area::Alias),
    ("multisplit_", Area::Multisplit),
    ("subset_", Area::Subset),
    ("convolve_", Area::Convolve),
    ("moments_", Area::Moments),
    ("lbp_", Area::Lbp),
    ("som_", Area::Som),
];

impl Area {
    /// Every area, in the order of [`Area::index`].
    pub const ALL: [Area; 9] = [
        Area::Grid,
        Area::Checks,
        Area::Alias,
        Area::Multisplit,
        Area::Subset,
        Area::Convolve,
        Area::Moments,
        Area::Lbp,
        Area::Som,
    ];

    /// The area's position in [`Area::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The area's name, as errors and build outputs show it.
    pub const fn name(self) -> &'static str {
        match self {
            Area::Grid => "grid",
            Area::Checks => "checks",
            Area::Alias => "alias",
            Area::Multisplit => "multisplit",
            Area::Subset => "subset",
            Area::Convolve => "convolve",
            Area::Moments => "moments",
            Area::Lbp => "lbp",
            Area::Som => "som",
        }
    }

    /// The area of the kernel entry `name`, or `None` if no prefix claims it.
    pub const fn of(name: &str) -> Option<Area> {
        by_prefix(name, PREFIXES)
    }
}

/// The value of the first entry of `table` whose prefix begins `name`: entry names map to
/// areas here and to launch bounds in [`crate::launch_bounds`](mod@crate::launch_bounds).
pub const fn by_prefix<T: Copy>(name: &str, table: &[(&str, T)]) -> Option<T> {
    let mut i = 0;
    while i < table.len() {
        if starts_with(name.as_bytes(), table[i].0.as_bytes()) {
            return Some(table[i].1);
        }
        i += 1;
    }
    None
}

const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    if s.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}
