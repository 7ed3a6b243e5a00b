//! How well the moves are ordered: at the nodes a move cuts off, how often the first move
//! searched is the one (a well-ordered search cuts with its first move about nine times in
//! ten, and each later cut costs the moves searched before it).

/// The nodes of a search cut off by a move, by that move's place among those searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cutoffs {
    /// Nodes cut off by a move.
    pub nodes: u64,
    /// Of those, the ones cut by the first move searched.
    pub first: u64,
    /// The sum over them of the cutting move's place (1 for the first).
    pub places: u64,
}

impl Cutoffs {
    /// A node cut off by the `place`-th move searched (1-based).
    #[inline]
    pub(super) fn record(&mut self, place: usize) {
        self.nodes += 1;
        self.first += (place == 1) as u64;
        self.places += place as u64;
    }

    /// Both searches' counts together.
    pub fn add(&mut self, other: Cutoffs) {
        self.nodes += other.nodes;
        self.first += other.first;
        self.places += other.places;
    }

    /// The share of the cut nodes cut by their first move.
    pub fn first_share(&self) -> f64 {
        self.first as f64 / self.nodes.max(1) as f64
    }

    /// The mean place of the cutting move.
    pub fn mean_place(&self) -> f64 {
        self.places as f64 / self.nodes.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_places_count_the_cutting_moves() {
        let mut c = Cutoffs::default();
        for place in [1, 1, 1, 3] {
            c.record(place);
        }
        assert_eq!((c.nodes, c.first, c.places), (4, 3, 6));
        assert_eq!(c.first_share(), 0.75);
        assert_eq!(c.mean_place(), 1.5);
        let mut both = c;
        both.add(c);
        assert_eq!((both.nodes, both.first, both.places), (8, 6, 12));
        assert_eq!(Cutoffs::default().first_share(), 0.0);
    }
}
