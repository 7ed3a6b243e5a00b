//! A node's kind (the root, a PV node, a non-PV node), fixed at compile time so that each
//! kind's search is its own code, and where a node stands.

use crate::xiangqi::eval::Score;

/// A node's kind, fixed at compile time so that each kind's search is its own code.
pub(super) trait Kind {
    /// The root: its moves are the search's root moves, it counts its node without the
    /// checks inner nodes make, and it reports the move it finds best.
    const ROOT: bool;
    /// On the principal variation: searched with an open window, never pruned.
    const PV: bool;
    /// The kind of the node's first child searched at full depth (its others are non-PV).
    type First: Kind;
}

/// The root node.
pub(super) struct Root;
/// A node on the principal variation below the root.
pub(super) struct Pv;
/// A node off the principal variation, searched with a null window.
pub(super) struct NonPv;

impl Kind for Root {
    const ROOT: bool = true;
    const PV: bool = true;
    type First = Pv;
}

impl Kind for Pv {
    const ROOT: bool = false;
    const PV: bool = true;
    type First = Pv;
}

impl Kind for NonPv {
    const ROOT: bool = false;
    const PV: bool = false;
    type First = NonPv;
}

/// Where a node stands: its ply, its depth (after extension and reduction) and its beta.
#[derive(Clone, Copy, Debug)]
pub(super) struct At {
    pub ply: usize,
    pub depth: i32,
    pub beta: Score,
}
