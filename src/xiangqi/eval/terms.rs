//! The evaluation's positional terms, walked once for both what consumes them: the score
//! ([`ScoreTerms`]) and the feature vector a fit on positions learns from ([`features`]).

use super::params::{
    endgame_first, CROSSED_PAWNS, IMBALANCE_COUNT, IMBALANCE_FIRST, IMBALANCE_ROLES, PST_POINTS, S,
};
use super::{phase, Weights, LAST_RANK, PHASE_MAX, SCALAR_COUNT};
use crate::xiangqi::attacks;
use crate::xiangqi::bitboard::Bitboard;
use crate::xiangqi::board::Board;
use crate::xiangqi::types::{Color, File, Rank, Role, Square};
use std::sync::LazyLock;

/// What the walk over the evaluation's positional terms ([`walk_terms`]) feeds: the score,
/// or the feature vector a fit on positions learns from. The terms are written once, so
/// the two cannot disagree.
pub(super) trait Terms {
    /// Whether the walk must count term `s` (the score skips what is weighted 0).
    fn wants(&self, s: S) -> bool;
    /// Whether the walk must count the [`PATTERNS`].
    fn wants_patterns(&self) -> bool;
    /// `count` occurrences of term `s` for the side of `sign` (1 Red, -1 Black).
    fn add(&mut self, s: S, sign: i32, count: i32);
    /// Two terms whose weighted sum is scaled by `mul / div`, rounded toward zero.
    fn add_scaled(&mut self, sign: i32, terms: [(S, i32); 2], mul: i32, div: i32);
    /// `count` of the `k`-th material imbalance term (see [`imbalance`]), from Red's side.
    fn add_imbalance(&mut self, k: usize, count: i32);
}

/// The positional terms summed by their weights, from Red's point of view.
pub(super) struct ScoreTerms<'a> {
    pub weights: &'a Weights,
    pub total: i32,
}

impl Terms for ScoreTerms<'_> {
    #[inline]
    fn wants(&self, s: S) -> bool {
        self.weights.s(s) != 0
    }

    #[inline]
    fn wants_patterns(&self) -> bool {
        self.weights.patterns
    }

    #[inline]
    fn add(&mut self, s: S, sign: i32, count: i32) {
        self.total += sign * self.weights.s(s) * count;
    }

    #[inline]
    fn add_scaled(&mut self, sign: i32, [(s0, c0), (s1, c1)]: [(S, i32); 2], mul: i32, div: i32) {
        let w = &self.weights;
        self.total += sign * ((w.s(s0) * c0 + w.s(s1) * c1) * mul / div);
    }

    #[inline]
    fn add_imbalance(&mut self, k: usize, count: i32) {
        self.total += self.weights.scalar[IMBALANCE_FIRST + k] * count;
    }
}

/// The positional terms as (spec index, coefficient) pairs: every term, weighted or not.
pub(super) struct FeatureTerms<'a> {
    out: &'a mut Vec<(u32, f32)>,
}

impl Terms for FeatureTerms<'_> {
    fn wants(&self, _: S) -> bool {
        true
    }

    fn wants_patterns(&self) -> bool {
        true
    }

    fn add(&mut self, s: S, sign: i32, count: i32) {
        self.out.push((s as u32, sign as f32 * count as f32));
    }

    fn add_scaled(&mut self, sign: i32, terms: [(S, i32); 2], mul: i32, div: i32) {
        for (s, c) in terms {
            self.out
                .push((s as u32, sign as f32 * (c as f32 * mul as f32 / div as f32)));
        }
    }

    fn add_imbalance(&mut self, k: usize, count: i32) {
        self.out.push(((IMBALANCE_FIRST + k) as u32, count as f32));
    }
}

/// The material imbalance of `board` from Red's point of view, fed to `terms` (Pikafish-HCE's
/// quadratic imbalance, after Stockfish's): what a piece is worth beside the side's other
/// pieces and against the enemy's, by their numbers alone. The `k`-th term counts, for
/// `IMBALANCE_ROLES` i and j, first each pair of own pieces of roles i and j (j <= i; two of
/// the same role a pair), then each own piece of role i with each enemy piece of role j
/// (j < i) less the same with the sides swapped; each count is Red's less Black's.
pub(super) fn imbalance<T: Terms>(board: &Board, terms: &mut T) {
    let [red, black] = Color::ALL.map(|c| IMBALANCE_ROLES.map(|r| board.pieces(c, r).count() as i32));
    const N: usize = IMBALANCE_ROLES.len();
    let pairs = |n: &[i32; N], i: usize, j: usize| {
        if i == j {
            n[i] * (n[i] - 1) / 2
        } else {
            n[i] * n[j]
        }
    };
    let mut k = 0;
    for i in 0..N {
        for j in 0..=i {
            terms.add_imbalance(k, pairs(&red, i, j) - pairs(&black, i, j));
            k += 1;
        }
    }
    for i in 1..N {
        for j in 0..i {
            terms.add_imbalance(k, red[i] * black[j] - black[i] * red[j]);
            k += 1;
        }
    }
    debug_assert_eq!(k, IMBALANCE_COUNT);
}

/// Pikafish-HCE's CrossedPawn by the count alone, fed to `terms`: for each side, the `n`-th
/// of [`CROSSED_PAWNS`] once it has more than `n` pawns across the river short of the
/// enemy's back rank. The piece-square values price each pawn on its own; these price the
/// count, where Pikafish-HCE's table has a first crossed pawn worth far more than none and a
/// third worth less than the second.
pub(super) fn crossed_pawns<T: Terms>(board: &Board, terms: &mut T) {
    for color in Color::ALL {
        let crossed = pawns_inside(board, color.flip());
        for (n, &s) in CROSSED_PAWNS.iter().enumerate() {
            terms.add(s, color.sign(), (crossed > n as i32) as i32);
        }
    }
}

/// The evaluation's positional terms of `board` (mobility, patterns, threats, protection,
/// king safety), fed to `terms`; returns every point each side attacks or defends, indexed
/// by colour.
pub(super) fn walk_terms<T: Terms>(board: &Board, terms: &mut T) -> [Bitboard; 2] {
    let occ = board.occupancy();
    let empty = !board.occupied();
    let steps = Color::ALL.map(|color| board.step_attacks(color));
    let count_unsafe = terms.wants(S::unsafe_mobility);
    let mut attacked = [Bitboard::EMPTY; 2];
    let mut reach = [0; 2];
    let mut minor = [Bitboard::EMPTY; 2];
    for color in Color::ALL {
        let c = color.index();
        let not_own = !board.by_color(color);
        let palace = attacks::PALACE[color.flip().index()];
        // Points a cheap enemy piece guards: what goes there is lost for less than it is worth.
        let guarded = steps[color.flip().index()];
        let unsafe_in = |m: Bitboard| {
            if count_unsafe {
                (m & guarded).count() as i32
            } else {
                0
            }
        };
        let (mut rook, mut cannon, mut horse, mut unsafe_points) = (0, 0, 0, 0);
        let mut att = steps[c];
        for sq in board.pieces(color, Role::Rook) {
            let a = attacks::rook_attacks(sq, occ);
            att |= a;
            reach[c] += (a & palace).any() as i32;
            let m = a & not_own;
            rook += m.count() as i32;
            unsafe_points += unsafe_in(m);
        }
        for sq in board.pieces(color, Role::Cannon) {
            let (slide, jump) = attacks::slider_attacks(sq, occ);
            att |= jump;
            minor[c] |= jump;
            reach[c] += (jump & palace).any() as i32;
            let m = slide & empty;
            cannon += m.count() as i32;
            unsafe_points += unsafe_in(m);
        }
        for sq in board.pieces(color, Role::Horse) {
            let a = attacks::horse_attacks(sq, occ);
            att |= a;
            minor[c] |= a;
            reach[c] += (a & palace).any() as i32;
            let m = a & not_own;
            horse += m.count() as i32;
            unsafe_points += unsafe_in(m);
        }
        attacked[c] = att;
        let sign = color.sign();
        terms.add(S::unsafe_mobility, sign, unsafe_points);
        terms.add(S::mobility_rook, sign, rook);
        terms.add(S::mobility_cannon, sign, cannon);
        terms.add(S::mobility_horse, sign, horse);
    }
    for color in Color::ALL {
        let sign = color.sign();
        if terms.wants_patterns() {
            // Only `wing_attack_safe` reads the exposed points.
            let exposed = if terms.wants(S::wing_attack_safe) {
                exposed(color, &steps, &attacked)
            } else {
                Bitboard::EMPTY
            };
            let counts = pattern_counts(board, color, reach[color.index()], exposed);
            for (&p, n) in PATTERNS.iter().zip(counts) {
                terms.add(p, sign, n);
            }
        }
        if terms.wants(S::threat_by_lesser) {
            let lesser = threats_by_lesser(board, color, minor[color.flip().index()]);
            terms.add(S::threat_by_lesser, sign, lesser);
        }
        safety_and_threats(board, color, &attacked, terms);
    }
    attacked
}

/// Threats, protection, king shelter and coordination for `color`.
pub(super) fn safety_and_threats<T: Terms>(
    board: &Board,
    color: Color,
    attacked: &[Bitboard; 2],
    terms: &mut T,
) {
    let sign = color.sign();
    let them = color.flip();
    let own = board.by_color(color) & !board.by_role(Role::King);
    let (mine, theirs) = (attacked[color.index()], attacked[them.index()]);
    let threatened = own & theirs;
    let count = |b: Bitboard| b.count() as i32;
    // A hanging piece of the side not to move is about to be taken.
    if board.turn() == them {
        terms.add(S::hanging, sign, count(threatened & !mine));
    }
    terms.add(S::attacked_defended, sign, count(threatened & mine));
    terms.add(S::protected, sign, count(own & mine));
    let attackers = count(
        board.pieces(them, Role::Rook) | board.pieces(them, Role::Horse) | board.pieces(them, Role::Cannon),
    );
    let missing_adv = 2 - count(board.pieces(color, Role::Advisor));
    let missing_ele = 2 - count(board.pieces(color, Role::Elephant));
    // A missing defender matters in proportion to what the enemy can attack with (6 at most).
    let missing = [
        (S::missing_advisor, missing_adv),
        (S::missing_elephant, missing_ele),
    ];
    terms.add_scaled(sign, missing, attackers, 4);
    terms.add(
        S::bare_palace_pawn,
        sign,
        missing_adv * pawns_inside(board, color),
    );
    let file = attacks::file_mask(board.king(color).file());
    terms.add(
        S::king_file_rook,
        sign,
        count(board.pieces(them, Role::Rook) & file),
    );
    terms.add(
        S::king_file_cannon,
        sign,
        count(board.pieces(them, Role::Cannon) & file),
    );
    terms.add(
        S::palace_pressure,
        sign,
        count(attacks::PALACE[color.index()] & theirs),
    );
    let linked = |role| {
        let pieces = board.pieces(color, role);
        (pieces.count() == 2 && (pieces & mine).count() == 2) as i32
    };
    terms.add(S::linked_advisors, sign, linked(Role::Advisor));
    terms.add(S::linked_elephants, sign, linked(Role::Elephant));
}

/// The spec index of each piece-square parameter, by role and Red-view square (files f..i
/// folded onto d..a); `u32::MAX` where the role never stands.
pub(super) static PST_INDEX: LazyLock<[[u32; 90]; 7]> = LazyLock::new(|| {
    let mut index = [[u32::MAX; 90]; 7];
    for (i, &(role, file, rank)) in PST_POINTS.iter().enumerate() {
        let sq = Square::from_coords(File::new(file).expect("file"), Rank::new(rank).expect("rank"));
        for s in [sq, sq.mirror_file()] {
            index[role.index()][s.index()] = (SCALAR_COUNT + i) as u32;
        }
    }
    index
});

/// The evaluation of `board` as a linear function of the parameters: pushes (spec index,
/// coefficient) pairs such that the sum of value times coefficient is
/// [`Weights::evaluate_red`] plus the tempo from Red's point of view (up to the rounding of
/// the phase taper and of the king-shelter quarter). Knobs and the king's fixed value have
/// no coefficient. What fitting on positions learns from; its positional part is the
/// score's own walk over the terms ([`walk_terms`]).
pub fn features(board: &Board, out: &mut Vec<(u32, f32)>) {
    let phase = phase(board) as f32 / PHASE_MAX as f32;
    let endgame = 1.0 - phase;
    // A point's endgame parameter stands as far after its piece-square one as the first of
    // each list apart.
    let endgame_shift = (endgame_first() - SCALAR_COUNT) as u32;
    let mut add = |s: S, c: f32| out.push((s as u32, c));
    add(S::tempo, board.turn().sign() as f32);
    let material = |role: Role| match role {
        Role::King => None,
        Role::Advisor => Some((S::advisor, Some(S::advisor_eg))),
        Role::Elephant => Some((S::elephant, Some(S::elephant_eg))),
        Role::Horse => Some((S::horse, Some(S::horse_eg))),
        Role::Rook => Some((S::rook, Some(S::rook_eg))),
        Role::Cannon => Some((S::cannon, Some(S::cannon_eg))),
        Role::Pawn => Some((S::pawn, None)),
    };
    for sq in Square::all() {
        let Some(p) = board.piece_at(sq) else { continue };
        let sign = p.color.sign() as f32;
        let own = if p.color == Color::Red { sq } else { sq.flip_rank() };
        let pst = PST_INDEX[p.role.index()][own.index()];
        out.push((pst, sign));
        out.push((pst + endgame_shift, sign * endgame));
        if let Some((value, eg)) = material(p.role) {
            out.push((value as u32, sign));
            if let Some(eg) = eg {
                out.push((eg as u32, sign * endgame));
            }
        }
        if p.role == Role::Pawn && own.rank().index() >= 5 {
            out.push((S::pawn_crossed_eg as u32, sign * endgame));
        }
    }
    let mut terms = FeatureTerms { out };
    imbalance(board, &mut terms);
    crossed_pawns(board, &mut terms);
    walk_terms(board, &mut terms);
}

/// The attack patterns of Xiangqi practice that Pikafish's classical evaluation also
/// knows, in the order [`pattern_counts`] counts them.
pub(super) const PATTERNS: [S; 11] = [
    S::hollow_cannon,
    S::cannon_pins_horse,
    S::bottom_cannon,
    S::rook_open_file,
    S::rook_half_open_file,
    S::paired_pawns,
    S::palace_attackers,
    S::hollow_cannon_home,
    S::cannon_pins_horse_home,
    S::wing_attack,
    S::wing_attack_safe,
];

/// How often `color` shows each of [`PATTERNS`], given `reach`, how many of its rooks,
/// horses and cannons attack a point of the enemy palace (its crossed pawns are added here).
/// Attackers count by pairs: one piece alone seldom mates, and each further one makes
/// more of the others' threats real.
/// `exposed` are the points where a piece of `color` may be taken at a loss (see [`exposed`]).
pub(super) fn pattern_counts(
    board: &Board,
    color: Color,
    reach: i32,
    exposed: Bitboard,
) -> [i32; PATTERNS.len()] {
    let them = color.flip();
    let king = board.king(them);
    let occupied = board.occupied();
    let (mut hollow, mut pins, mut bottom) = (0, 0, 0);
    for sq in board.pieces(color, Role::Cannon) {
        let screens = attacks::between(sq, king) & occupied;
        if sq.file() == king.file() {
            match screens.count() {
                0 => hollow += 1,
                2 if (screens & board.pieces(them, Role::Horse) & attacks::king_attacks(king)).any() => {
                    pins += 1
                }
                _ => {}
            }
        } else if sq.rank() == king.rank() && screens.is_empty() {
            bottom += 1;
        }
    }
    let (own_pawns, their_pawns) = (board.pieces(color, Role::Pawn), board.pieces(them, Role::Pawn));
    let (mut open, mut half_open) = (0, 0);
    for sq in board.pieces(color, Role::Rook) {
        let file = attacks::file_mask(sq.file());
        if (own_pawns & file).is_empty() {
            if (their_pawns & file).is_empty() {
                open += 1;
            } else {
                half_open += 1;
            }
        }
    }
    let crossed = own_pawns & !attacks::own_half(color);
    let (mut linked, mut pawns_at_palace) = (0, 0);
    for sq in crossed {
        linked += sq.offset(1, 0).is_some_and(|right| crossed.contains(right)) as i32;
        pawns_at_palace += (attacks::pawn_attacks(color, sq) & attacks::PALACE[them.index()]).any() as i32;
    }
    let attackers = reach + pawns_at_palace;
    // Pieces massed on one wing across the river (Pikafish-HCE's PiecesOnOneSide): one alone
    // is easily met, two or more make an attack the defence must answer there.
    let across = (board.pieces(color, Role::Rook)
        | board.pieces(color, Role::Horse)
        | board.pieces(color, Role::Cannon))
        & !attacks::own_half(color);
    let massed = |pieces: Bitboard| {
        attacks::WINGS
            .iter()
            .filter(|&&w| (pieces & w).more_than_one())
            .count() as i32
    };
    // Pikafish-HCE counts only the pieces the defence cannot take at a profit.
    let (wings, safe_wings) = (massed(across), massed(across & !exposed));
    // Looked at only where a cannon holds the king's file.
    let held = (hollow + pins > 0 && held_at_home(board, them)) as i32;
    [
        hollow,
        pins,
        bottom,
        open,
        half_open,
        linked,
        attackers * (attackers - 1) / 2,
        hollow * held,
        pins * held,
        wings,
        safe_wings,
    ]
}

/// The points where a rook, horse or cannon of `color` would be lost at a profit: those an
/// enemy pawn, advisor, elephant or king attacks, and those the enemy attacks that `color`
/// does not defend (`steps` and `attacked` indexed by colour, as the evaluation has them).
pub(super) fn exposed(color: Color, steps: &[Bitboard; 2], attacked: &[Bitboard; 2]) -> Bitboard {
    let them = color.flip().index();
    steps[them] | (attacked[them] & !attacked[color.index()])
}

/// Each colour's king's starting point (e0, e9; a point's index is rank x 9 + file).
pub(super) const KING_HOME: [Square; 2] = [Square::new_unchecked(4), Square::new_unchecked(85)];
/// Each colour's advisors' starting points (d0 and f0, d9 and f9).
pub(super) const ADVISOR_HOMES: [Bitboard; 2] = [
    Bitboard::from_square(Square::new_unchecked(3)).with(Square::new_unchecked(5)),
    Bitboard::from_square(Square::new_unchecked(84)).with(Square::new_unchecked(86)),
];

/// Whether `color`'s king stands on its starting point with both its advisors on theirs:
/// then it can only step up its own file, so a cannon on that file stays a threat (the
/// case Pikafish-HCE scores its hollow cannon and central horse in).
pub(super) fn held_at_home(board: &Board, color: Color) -> bool {
    let c = color.index();
    board.king(color) == KING_HOME[c] && (board.pieces(color, Role::Advisor) & ADVISOR_HOMES[c]).count() == 2
}

/// How many of `color`'s rooks a cheaper enemy piece attacks (`minor`: what the enemy's horses
/// and cannons attack), and how many of its horses and cannons an enemy pawn, advisor or
/// elephant attacks: an exchange there loses material even where the piece is defended.
pub(super) fn threats_by_lesser(board: &Board, color: Color, minor: Bitboard) -> i32 {
    let them = color.flip();
    let cheap = attacks::pawn_attacks_all(them, board.pieces(them, Role::Pawn))
        | attacks::advisor_attacks_all(board.pieces(them, Role::Advisor))
        | attacks::elephant_attacks_all(them, board.pieces(them, Role::Elephant), board.occupancy());
    let rooks = board.pieces(color, Role::Rook) & (cheap | minor);
    let minors = (board.pieces(color, Role::Horse) | board.pieces(color, Role::Cannon)) & cheap;
    (rooks.count() + minors.count()) as i32
}

/// The enemy pawns across the river in `color`'s half, short of its back rank: there a pawn
/// still bears on the palace (Pikafish-HCE values crossed pawns by the advisors left to meet
/// them).
pub(super) fn pawns_inside(board: &Board, color: Color) -> i32 {
    let them = color.flip();
    (board.pieces(them, Role::Pawn) & attacks::own_half(color) & !LAST_RANK[them.index()]).count() as i32
}
