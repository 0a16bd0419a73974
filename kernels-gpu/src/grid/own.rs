//! Device-wide reductions and scans by an operator of one's own:
//! [`operator_kernels!`](crate::operator_kernels!) declares, in the crate that calls it, the
//! reduction and the exclusive and inclusive scans of one [`Operator`](crate::op::Operator)
//! over one element type (u32, u64, f32, f64, i32 or i64), and their table
//! ([`OperatorKernels`](super::kernels::OperatorKernels)), which `warpkit::Backend::reduce_by`
//! and the scans `_by` launch. They are the kernels of warpkit's sums, with the operator in
//! place of the addition.
//!
//! The operator is a `Copy + Default` type (the kernels make it by `Default`); the scans
//! combine a tile's predecessors newest first, so they need it commutative
//! (`Operator::COMMUTATIVE`, checked when the crate compiles); the reduction does not. The
//! scans carry warpkit's scan launch bounds ([`SCAN`](crate::launch_bounds::SCAN), through
//! [`launch_bounds!`](crate::launch_bounds!)).
//!
//! ```ignore
//! #[derive(Clone, Copy, Default)]
//! pub struct Gcd;
//!
//! impl Operator<u64> for Gcd {
//!     const COMMUTATIVE: bool = true;
//!     fn identity(self) -> u64 { 0 }
//!     fn combine(self, a: u64, b: u64) -> u64 { /* Euclid */ }
//! }
//!
//! warpkit_kernels::operator_kernels! {
//!     /// Greatest common divisors of u64.
//!     pub gcd_u64: Gcd for u64;
//! }
//! ```

/// Declares the device-wide reduction and scans of operators of one's own; see the
/// [module docs](mod@crate::grid::own). Each line, `vis name: Operator for T;` (a type's name
/// in scope, and an element type), makes a module `name` holding the three kernels, their PTX
/// entries named `name_reduce`, `name_exclusive_scan` and `name_inclusive_scan`, and implements
/// `OperatorKernels<T>` for the operator. The name must be unique among the crate's kernels.
#[macro_export]
macro_rules! operator_kernels {
    ($($(#[$attr:meta])* $vis:vis $name:ident: $op:ident for $t:ident;)+) => {
        $($crate::operator_kernels!(@one [$(#[$attr])*] $vis $name $op $t);)+
    };
    (@one [$($attr:tt)*] $vis:vis $name:ident $op:ident $t:ident) => {
        $($attr)*
        #[allow(non_camel_case_types)]
        $vis mod $name {
            #[allow(unused_imports)]
            use super::*;
            // The families, by the names their declarations use.
            #[cfg(not(target_arch = "nvptx64"))]
            use $crate::grid::kernels::OperatorKernels;
            use $crate::grid::reduce::Reduce;
            use $crate::grid::scan::Scan;

            $crate::grid_reduce_entry!(
                reduce = concat!(stringify!($name), "_reduce"); [$t]
                $crate::grid::reduce::reduce::<$t, $op, { 16 / size_of::<$t>() }>
            );
            $crate::operator_kernels!(@scan $name $op $t exclusive_scan false "_exclusive_scan");
            $crate::operator_kernels!(@scan $name $op $t inclusive_scan true "_inclusive_scan");

            $crate::kernel_table!(@impl OperatorKernels [$t] $op {
                Reduce = reduce,
                ExclusiveScan = exclusive_scan,
                InclusiveScan = inclusive_scan,
            });
        }
    };
    (@scan $name:ident $op:ident $t:ident $entry:ident $inclusive:tt $suffix:literal) => {
        $crate::grid_scan_entry!(
            $entry = concat!(stringify!($name), $suffix); [$t]
            $crate::grid::scan::scan_tile::<
                $t,
                $op,
                { 16 / size_of::<$t>() },
                { $crate::policy::SCAN_POLICY.block_threads },
                { $crate::policy::SCAN_POLICY.vectors_per_thread as usize },
                { $crate::policy::SCAN_POLICY.ticket },
                $inclusive,
                { $crate::policy::SCAN_POLICY.first_look_ns },
                { $crate::policy::SCAN_POLICY.poll_ns },
            >;
            check |p, shape| p.runs_as(shape, $crate::policy::SCAN_POLICY)
        );
        // The bounds warpkit's own scans have (without them the u32 scan took 72 registers
        // and ran 9 % slower on the H200, in blocks of 256).
        $crate::launch_bounds!(concat!(stringify!($name), $suffix), $crate::launch_bounds::SCAN);
    };
}
