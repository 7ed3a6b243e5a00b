//! Amazons searchers (seed 004): UCT and, for comparison, alpha-beta over the same evaluation.

use super::board::{king_spread, queen_reach, Board, Move};
use super::eval::Weights;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// UCT settings: the budget and the weights' search knobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UctConfig {
    /// Playouts per search (at most).
    pub playouts: u32,
    /// On a clock: the search stops here even with playouts left.
    pub deadline: Option<Instant>,
    /// A node is expanded once it has been visited this often (seed: 40).
    pub expand_after: u32,
    /// Candidate moves kept after the cheap ordering (seed: about 400).
    pub candidates: usize,
    /// Children a node starts with; one more per `widen_every` visits (progressive widening).
    pub initial_children: usize,
    pub widen_every: u32,
    /// Plies of random play before a playout is scored by the evaluation. The seed says 6-10;
    /// 0 (the leaf scored at once) measured as strong on a clock and far stronger at a fixed
    /// number of playouts, and it makes the weights matter more (README, Amazons strength).
    pub playout_plies: u32,
    /// A playout scores sigmoid(evaluation / this); 0 scores the evaluation's sign.
    pub playout_scale: f64,
    /// The root's moves ordered by the evaluation after them (all legal moves), not by the
    /// cheap ordering: one evaluation per legal move a search, and the evaluation's weights
    /// then decide which moves the tree ever looks at.
    pub root_by_eval: bool,
    /// The move played: the root child with the best mean among those visited at least
    /// `expand_after` times (seed 004's rule; the most visited if none was), else the most
    /// visited child.
    pub final_by_mean: bool,
    /// [`uct_in`] goes on from the kept tree's subtree when the board is one of its replies.
    pub tree_reuse: bool,
}

impl UctConfig {
    /// The settings of `weights`' knobs with a budget of `playouts`.
    pub fn of(weights: &Weights, playouts: u32) -> UctConfig {
        let k = weights.knobs;
        UctConfig {
            playouts,
            deadline: None,
            expand_after: k.expand_after,
            candidates: 400,
            initial_children: 8,
            widen_every: k.widen_every,
            playout_plies: k.playout_plies,
            playout_scale: k.playout_scale,
            root_by_eval: k.root_by_eval,
            final_by_mean: k.final_by_mean,
            tree_reuse: k.tree_reuse,
        }
    }
}

impl Default for UctConfig {
    /// The built-in knobs, 2,000 playouts.
    fn default() -> Self {
        UctConfig::of(&Weights::default(), 2000)
    }
}

#[derive(Clone, Debug, Default)]
struct Node {
    mv: Option<Move>,
    visits: u32,
    /// Results for the side that played `mv` (1 a win, 1/2 even, 0 a loss).
    wins: f64,
    expanded: bool,
    candidates: Vec<Move>,
    children: Vec<u32>,
}

impl Node {
    fn new(mv: Option<Move>) -> Node {
        Node {
            mv,
            visits: 0,
            wins: 0.0,
            expanded: false,
            candidates: Vec::new(),
            children: Vec::new(),
        }
    }

    /// The mean result for the side that played `mv` (0 before any visit).
    fn mean(&self) -> f64 {
        self.wins / self.visits.max(1) as f64
    }
}

/// A cheap ordering score: an amazon's room where it lands, and arrows that crowd the enemy's
/// amazons rather than one's own.
fn order_score(board: &Board, from: u8, to: u8, arrow: u8, occupied_after: u128) -> i32 {
    let room = queen_reach(to as usize, occupied_after).count_ones() as i32;
    let around = king_spread(1u128 << arrow);
    let near = |set: u128| (around & set).count_ones() as i32;
    let enemy = board.amazons(board.turn().flip());
    let own = (board.amazons(board.turn()) & !(1u128 << from)) | 1u128 << to;
    2 * room + 6 * near(enemy) - 3 * near(own)
}

/// The best `n` moves by the cheap ordering, best first.
pub fn candidate_moves(board: &Board, n: usize) -> Vec<Move> {
    let mut out = Vec::new();
    candidates_into(board, n, &mut Vec::new(), &mut out);
    out
}

/// [`candidate_moves`] into `out`, with `scored` as scratch: searches reuse both buffers.
pub fn candidates_into(board: &Board, n: usize, scored: &mut Vec<(i32, u32, Move)>, out: &mut Vec<Move>) {
    let occupied = board.occupied();
    scored.clear();
    board.for_each_step(|from, to, mut arrows| {
        let after = (occupied & !(1u128 << from)) | 1u128 << to;
        while arrows != 0 {
            let arrow = arrows.trailing_zeros() as u8;
            arrows &= arrows - 1;
            let mv = Move { from, to, arrow };
            let index = scored.len() as u32;
            scored.push((
                -order_score(board, from, to, arrow, after | 1u128 << arrow),
                index,
                mv,
            ));
        }
    });
    // Best score first, ties in generation order: a total order, so the choice is
    // deterministic; only the best n are sorted.
    if scored.len() > n && n > 0 {
        scored.select_nth_unstable_by_key(n - 1, |s| (s.0, s.1));
    }
    scored.truncate(n);
    scored.sort_unstable_by_key(|s| (s.0, s.1));
    out.clear();
    out.extend(scored.iter().map(|s| s.2));
}

/// The `k`-th legal move in generation order (k below the move count).
fn nth_move(board: &Board, mut k: u64) -> Option<Move> {
    let mut found = None;
    board.for_each_step(|from, to, arrows| {
        if found.is_some() {
            return;
        }
        let n = arrows.count_ones() as u64;
        if k < n {
            let mut a = arrows;
            for _ in 0..k {
                a &= a - 1;
            }
            found = Some(Move {
                from,
                to,
                arrow: a.trailing_zeros() as u8,
            });
        } else {
            k -= n;
        }
    });
    found
}

/// A uniformly random legal move, or `None` when the side to move has none.
pub fn random_move(board: &Board, rng: &mut impl Rng) -> Option<Move> {
    let n = board.count_moves();
    (n > 0).then(|| nth_move(board, rng.gen_range(0..n))).flatten()
}

/// The start position after up to `plies` uniformly random moves (fewer if the side to move
/// runs out of moves: `arrows().count_ones()` tells how many were played).
pub fn random_position(plies: u32, rng: &mut impl Rng) -> Board {
    let mut board = Board::startpos();
    for _ in 0..plies {
        match random_move(&board, rng) {
            Some(m) => board.play(m),
            None => break,
        }
    }
    board
}

/// A random move for playouts: a random amazon that can move, a random landing point, a
/// random arrow. Not uniform over all moves (an amazon with few moves gets its share), but
/// three queen lookups instead of a pass over every move.
pub fn playout_move(board: &Board, rng: &mut impl Rng) -> Option<Move> {
    let occupied = board.occupied();
    let mut movable = [0u8; 4];
    let mut n = 0;
    let mut mine = board.amazons(board.turn());
    while mine != 0 {
        let s = mine.trailing_zeros() as u8;
        mine &= mine - 1;
        if queen_reach(s as usize, occupied) != 0 {
            movable[n] = s;
            n += 1;
        }
    }
    if n == 0 {
        return None;
    }
    let from = movable[rng.gen_range(0..n)];
    let to = nth_bit(queen_reach(from as usize, occupied), rng);
    // A reachable point always has an arrow: at least back where the amazon came from.
    let without = (occupied & !(1u128 << from)) | 1u128 << to;
    let arrow = nth_bit(queen_reach(to as usize, without), rng);
    Some(Move { from, to, arrow })
}

/// A uniformly chosen set bit of a non-empty set.
fn nth_bit(mut set: u128, rng: &mut impl Rng) -> u8 {
    for _ in 0..rng.gen_range(0..set.count_ones()) {
        set &= set - 1;
    }
    set.trailing_zeros() as u8
}

/// The outcome of a UCT search.
#[derive(Clone, Debug, PartialEq)]
pub struct UctResult {
    pub best: Option<Move>,
    /// The best move's mean result for the side to move.
    pub value: f64,
    pub playouts: u32,
}

/// UCT over the Amazons evaluation; a playout-limited search is deterministic for a seed.
pub fn uct(board: &Board, plies_played: u32, weights: &Weights, config: &UctConfig, seed: u64) -> UctResult {
    uct_in(&mut Tree::default(), board, plies_played, weights, config, seed)
}

/// A UCT tree kept between the moves of one game: the next search starts from the subtree
/// under the move played and the opponent's reply, with their playouts, when the board it is
/// given is one of those replies; otherwise afresh.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    /// The board at the root of `nodes`, and the root child played from it.
    root: Option<(Board, u32)>,
}

impl Tree {
    /// Makes the node whose board is `board`, two plies below the root through the child
    /// played, the new root; true if there was one.
    fn advance(&mut self, board: &Board) -> bool {
        let Some((root, played)) = self.root.take() else {
            return false;
        };
        let mut after = root;
        after.play(self.nodes[played as usize].mv.expect("children have moves"));
        let reply = self.nodes[played as usize].children.iter().copied().find(|&c| {
            let mut b = after.clone();
            b.play(self.nodes[c as usize].mv.expect("children have moves"));
            b == *board
        });
        let Some(reply) = reply else {
            return false;
        };
        // The subtree is copied breadth first into a fresh arena, so that the nodes of the
        // branches not taken are freed and ids stay dense.
        let mut old = std::mem::take(&mut self.nodes);
        let mut nodes = vec![std::mem::take(&mut old[reply as usize])];
        nodes[0].mv = None;
        let mut i = 0;
        while i < nodes.len() {
            let children = std::mem::take(&mut nodes[i].children);
            let mut kept = Vec::with_capacity(children.len());
            for c in children {
                nodes.push(std::mem::take(&mut old[c as usize]));
                kept.push((nodes.len() - 1) as u32);
            }
            nodes[i].children = kept;
            i += 1;
        }
        self.nodes = nodes;
        true
    }

    /// With `root_by_eval`, a root that was expanded below the root has its cheap ordering:
    /// its children keep their places and the moves not yet tried follow by the evaluation.
    fn order_root_by_eval(&mut self, board: &Board, plies_played: u32, weights: &Weights, n: usize) {
        if !self.nodes[0].expanded {
            return;
        }
        let mut candidates: Vec<Move> = self.nodes[0]
            .children
            .iter()
            .map(|&c| self.nodes[c as usize].mv.expect("children have moves"))
            .collect();
        let tried = candidates.len();
        for mv in moves_by_evaluation(board, plies_played, weights, n) {
            if !candidates[..tried].contains(&mv) {
                candidates.push(mv);
            }
        }
        self.nodes[0].candidates = candidates;
    }
}

/// [`uct`] in a tree kept from the game's previous search (see [`Tree`]), when
/// `config.tree_reuse` says so; otherwise in a fresh tree, as [`uct`].
pub fn uct_in(
    tree: &mut Tree,
    board: &Board,
    plies_played: u32,
    weights: &Weights,
    config: &UctConfig,
    seed: u64,
) -> UctResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if config.tree_reuse && tree.advance(board) {
        if config.root_by_eval {
            tree.order_root_by_eval(board, plies_played, weights, config.candidates);
        }
    } else {
        tree.nodes.clear();
        tree.nodes.push(Node::new(None));
    }
    let nodes = &mut tree.nodes;
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut done = 0u32;
    while done < config.playouts.max(1) {
        // The clock is read every 16 playouts (a few hundred microseconds).
        if done % 16 == 0 && done > 0 && config.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        done += 1;
        let mut b = board.clone();
        let mut ply = plies_played;
        let mut node = 0usize;
        path.clear();
        path.push(0);
        loop {
            if !nodes[node].expanded {
                if node != 0 && nodes[node].visits < config.expand_after {
                    break;
                }
                nodes[node].candidates = if node == 0 && config.root_by_eval {
                    moves_by_evaluation(&b, plies_played, weights, config.candidates)
                } else {
                    candidate_moves(&b, config.candidates)
                };
                nodes[node].expanded = true;
            }
            if nodes[node].candidates.is_empty() {
                break;
            }
            let allowed = (config.initial_children
                + (nodes[node].visits / config.widen_every.max(1)) as usize)
                .min(nodes[node].candidates.len());
            while nodes[node].children.len() < allowed {
                let mv = nodes[node].candidates[nodes[node].children.len()];
                nodes.push(Node::new(Some(mv)));
                let id = (nodes.len() - 1) as u32;
                nodes[node].children.push(id);
            }
            let parent_visits = nodes[node].visits.max(1) as f64;
            let c = weights.uct_c;
            let child = *nodes[node]
                .children
                .iter()
                .max_by(|&&x, &&y| {
                    let ucb = |i: u32| {
                        let n = &nodes[i as usize];
                        if n.visits == 0 {
                            f64::INFINITY
                        } else {
                            n.wins / n.visits as f64 + c * (parent_visits.ln() / n.visits as f64).sqrt()
                        }
                    };
                    // On equal values the earlier (better ordered) child wins.
                    ucb(x)
                        .partial_cmp(&ucb(y))
                        .unwrap_or(std::cmp::Ordering::Equal)
                        .then(y.cmp(&x))
                })
                .expect("a node with candidates has children");
            b.play(nodes[child as usize].mv.expect("children have moves"));
            ply += 1;
            node = child as usize;
            path.push(child);
        }
        // The result for the side to move at the leaf.
        let mut result = simulate(&mut b, ply, weights, config, &mut rng);
        for &id in path.iter().rev() {
            let n = &mut nodes[id as usize];
            n.visits += 1;
            // A node's wins are its mover's: the side not to move at it.
            n.wins += 1.0 - result;
            result = 1.0 - result;
        }
    }
    let best = final_choice(nodes, config);
    tree.root = best.map(|id| (board.clone(), id));
    match best {
        Some(id) => {
            let n = &tree.nodes[id as usize];
            UctResult {
                best: n.mv,
                value: n.mean(),
                playouts: done,
            }
        }
        None => UctResult {
            best: None,
            value: 0.0,
            playouts: done,
        },
    }
}

/// The root child to play: the most visited, or with `final_by_mean` the best mean among the
/// children visited `expand_after` times or more (a mean of a few playouts is noise). Ties go
/// to the earlier, better ordered child.
fn final_choice(nodes: &[Node], config: &UctConfig) -> Option<u32> {
    let children = &nodes[0].children;
    let most_visited = children.iter().copied().max_by(|&x, &y| {
        nodes[x as usize]
            .visits
            .cmp(&nodes[y as usize].visits)
            .then(y.cmp(&x))
    });
    if !config.final_by_mean {
        return most_visited;
    }
    let mean = |i: u32| nodes[i as usize].mean();
    children
        .iter()
        .copied()
        .filter(|&i| nodes[i as usize].visits >= config.expand_after)
        .max_by(|&x, &y| mean(x).total_cmp(&mean(y)).then(y.cmp(&x)))
        .or(most_visited)
}

/// Random play for the configured plies, then the evaluation's verdict: the result for the
/// side to move at the start (1 a win, 0 a loss, 1/2 level), a sigmoid of the evaluation's
/// margin (the seed's second option) or its sign.
fn simulate(
    board: &mut Board,
    mut ply: u32,
    weights: &Weights,
    config: &UctConfig,
    rng: &mut impl Rng,
) -> f64 {
    let start = board.turn();
    for _ in 0..config.playout_plies {
        match playout_move(board, rng) {
            Some(mv) => {
                board.play(mv);
                ply += 1;
            }
            // No move: the side to move has lost.
            None => return if board.turn() == start { 0.0 } else { 1.0 },
        }
    }
    if !board.has_move() {
        return if board.turn() == start { 0.0 } else { 1.0 };
    }
    let v = weights.evaluate(board, ply);
    let for_mover = if config.playout_scale > 0.0 {
        1.0 / (1.0 + (-v / config.playout_scale).exp())
    } else if v > 0.0 {
        1.0
    } else if v < 0.0 {
        0.0
    } else {
        0.5
    };
    if board.turn() == start {
        for_mover
    } else {
        1.0 - for_mover
    }
}

/// What alpha-beta may spend on a move: the first limit reached stops it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbLimits {
    pub depth: u32,
    /// Nodes (positions visited); the search is deterministic when only this and `depth` bind.
    pub nodes: u64,
    pub deadline: Option<Instant>,
    /// Moves searched at each node below the root, the best by the cheap ordering (after the
    /// table's move).
    pub width: usize,
    /// Moves searched at the root: the best of all legal moves by the evaluation after them.
    pub root_width: usize,
}

/// The outcome of an alpha-beta search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbResult {
    pub best: Option<Move>,
    /// The best move's score for the side to move, in points of the evaluation.
    pub value: f64,
    /// The last depth completed.
    pub depth: u32,
    pub nodes: u64,
}

/// A side with no move has lost: scored below any evaluation, sooner worse.
const LOST: f64 = -10_000.0;
const TABLE_BITS: u32 = 16;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    best: Option<Move>,
    depth: u8,
    /// 0 exact, 1 a lower bound (failed high), 2 an upper bound (failed low).
    bound: u8,
    value: f64,
}

/// Iterative-deepening alpha-beta over the evaluation: at the root the `root_width` best
/// moves by the evaluation (a full-width first ply), at each other node the table's move
/// first, then the `width` best moves by the cheap ordering; a table of 64 K entries keeps
/// each position's best move and bound between iterations. Per-ply move buffers are
/// allocated once a search.
struct AlphaBeta<'w> {
    weights: &'w Weights,
    limits: AbLimits,
    root: Vec<Move>,
    table: Vec<Entry>,
    moves: Vec<Vec<Move>>,
    scored: Vec<(i32, u32, Move)>,
    nodes: u64,
    checks: u64,
    stopped: bool,
}

impl AlphaBeta<'_> {
    fn out_of_budget(&mut self) -> bool {
        if !self.stopped {
            // The clock is read every 32 checks (a millisecond or so of search).
            self.checks += 1;
            self.stopped = self.nodes >= self.limits.nodes
                || (self.checks % 32 == 0 && self.limits.deadline.is_some_and(|d| Instant::now() >= d));
        }
        self.stopped
    }

    fn negamax(
        &mut self,
        b: &mut Board,
        ply: u32,
        height: usize,
        depth: u32,
        mut alpha: f64,
        beta: f64,
    ) -> f64 {
        self.nodes += 1;
        if depth == 0 {
            return self.weights.evaluate(b, ply);
        }
        let key = b.key();
        let slot = (key >> (64 - TABLE_BITS)) as usize;
        let entry = self.table[slot];
        let hint = if entry.key == key {
            if entry.depth as u32 >= depth && height > 0 {
                let cut = match entry.bound {
                    0 => true,
                    1 => entry.value >= beta,
                    _ => entry.value <= alpha,
                };
                if cut {
                    return entry.value;
                }
            }
            entry.best.filter(|&m| b.is_legal(m))
        } else {
            None
        };
        if self.moves.len() <= height {
            self.moves.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.moves[height]);
        if height == 0 {
            moves.clear();
            moves.extend_from_slice(&self.root);
        } else {
            candidates_into(b, self.limits.width, &mut self.scored, &mut moves);
        }
        if moves.is_empty() {
            self.moves[height] = moves;
            return LOST - depth as f64;
        }
        if let Some(h) = hint {
            match moves.iter().position(|&m| m == h) {
                Some(i) => moves[..=i].rotate_right(1),
                None => moves.insert(0, h),
            }
        }
        let alpha0 = alpha;
        let mut best = (f64::NEG_INFINITY, moves[0]);
        for &mv in &moves {
            b.play(mv);
            let v = -self.negamax(b, ply + 1, height + 1, depth - 1, -beta, -alpha);
            b.unplay(mv);
            if self.out_of_budget() {
                break;
            }
            if v > best.0 {
                best = (v, mv);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        self.moves[height] = moves;
        if !self.stopped {
            let bound = if best.0 >= beta {
                1
            } else if best.0 <= alpha0 {
                2
            } else {
                0
            };
            self.table[slot] = Entry {
                key,
                best: Some(best.1),
                depth: depth.min(255) as u8,
                bound,
                value: best.0,
            };
        }
        best.0
    }
}

/// Every legal move scored by the evaluation after it (a move that leaves the opponent none
/// first), best first, ties in generation order; the best `n` are kept.
fn moves_by_evaluation(board: &Board, plies_played: u32, weights: &Weights, n: usize) -> Vec<Move> {
    let mut all = Vec::new();
    board.for_each_step(|from, to, mut arrows| {
        while arrows != 0 {
            let arrow = arrows.trailing_zeros() as u8;
            arrows &= arrows - 1;
            all.push(Move { from, to, arrow });
        }
    });
    let mut b = board.clone();
    let mut scored: Vec<(f64, usize, Move)> = all
        .into_iter()
        .enumerate()
        .map(|(i, mv)| {
            b.play(mv);
            let v = if b.has_move() {
                -weights.evaluate(&b, plies_played + 1)
            } else {
                -LOST
            };
            b.unplay(mv);
            (v, i, mv)
        })
        .collect();
    scored.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    scored.truncate(n.max(1));
    scored.into_iter().map(|s| s.2).collect()
}

/// Alpha-beta by iterative deepening to `limits` (the classical searcher UCT is compared
/// with). The answer is the last completed depth's move; when the deadline comes before
/// depth 1 completes, the best move by the evaluation after it stands.
pub fn alphabeta(board: &Board, plies_played: u32, weights: &Weights, limits: AbLimits) -> AbResult {
    let root = moves_by_evaluation(board, plies_played, weights, limits.root_width);
    let first = root.first().copied();
    let mut search = AlphaBeta {
        weights,
        limits,
        root,
        table: vec![Entry::default(); 1 << TABLE_BITS],
        moves: Vec::new(),
        scored: Vec::new(),
        nodes: 0,
        checks: 0,
        stopped: false,
    };
    let mut b = board.clone();
    let mut result = AbResult {
        best: first,
        value: 0.0,
        depth: 0,
        nodes: 0,
    };
    if first.is_none() {
        return result;
    }
    for depth in 1..=limits.depth.max(1) {
        let value = search.negamax(&mut b, plies_played, 0, depth, f64::NEG_INFINITY, f64::INFINITY);
        let slot = (b.key() >> (64 - TABLE_BITS)) as usize;
        let root = search.table[slot];
        if search.stopped {
            break;
        }
        result = AbResult {
            best: root.best.or(first),
            value,
            depth,
            nodes: search.nodes,
        };
        // A won or lost position needs no deeper search.
        if value.abs() >= -LOST - 1000.0 {
            break;
        }
    }
    result.nodes = search.nodes;
    result
}

/// A balanced opening set: `count` distinct positions reached by `plies` seeded random moves
/// from the start, each kept when a UCT search of `playouts` gives the side to move an
/// expected result within `window` of one half. Candidates are judged in parallel, in order.
pub fn openings(count: usize, plies: u32, playouts: u32, window: f64, seed: u64) -> Vec<Board> {
    use rayon::prelude::*;
    let weights = Weights::default();
    let config = UctConfig {
        playouts,
        ..UctConfig::default()
    };
    let mut kept: Vec<Board> = Vec::new();
    let mut next = 0u64;
    // Judge in batches until enough have passed; each candidate depends only on its index.
    while kept.len() < count && next < 100 * count as u64 + 1000 {
        let batch: Vec<Option<Board>> = (next..next + 64)
            .into_par_iter()
            .map(|i| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let board = random_position(plies, &mut rng);
                if board.arrows().count_ones() < plies {
                    return None;
                }
                let r = uct(&board, plies, &weights, &config, i);
                ((r.value - 0.5).abs() <= window).then_some(board)
            })
            .collect();
        next += 64;
        for b in batch.into_iter().flatten() {
            if kept.len() < count && !kept.contains(&b) {
                kept.push(b);
            }
        }
    }
    kept
}

/// The fixed Amazons benchmark: UCT with a fixed number of playouts from the start and from
/// positions after seeded random plies. Returns (playouts, seconds).
pub fn bench(playouts: u32) -> (u64, f64) {
    let weights = Weights::default();
    let config = UctConfig {
        playouts,
        ..UctConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(2010);
    let mut total = 0u64;
    let start = std::time::Instant::now();
    for plies in [0u32, 6, 12, 20, 30, 40] {
        let board = random_position(plies, &mut rng);
        uct(&board, plies, &weights, &config, plies as u64);
        total += config.playouts as u64;
    }
    (total, start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_legal_and_ordered() {
        let b = Board::startpos();
        let c = candidate_moves(&b, 400);
        assert_eq!(c.len(), 400);
        assert!(c.iter().all(|&m| b.is_legal(m)));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..50 {
            assert!(b.is_legal(random_move(&b, &mut rng).unwrap()));
            assert!(b.is_legal(playout_move(&b, &mut rng).unwrap()));
        }
    }

    #[test]
    fn uct_is_deterministic_and_legal() {
        let b = Board::startpos();
        let w = Weights::default();
        let cfg = UctConfig {
            playouts: 300,
            ..UctConfig::default()
        };
        let a = uct(&b, 0, &w, &cfg, 7);
        assert_eq!(a, uct(&b, 0, &w, &cfg, 7));
        assert!(b.is_legal(a.best.unwrap()));
        // A deadline already passed still gives a legal move.
        let rushed = UctConfig {
            deadline: Some(Instant::now()),
            ..cfg
        };
        let r = uct(&b, 0, &w, &rushed, 7);
        assert!(r.playouts < 300 && b.is_legal(r.best.unwrap()));
    }

    #[test]
    fn a_kept_tree_goes_on_from_the_opponents_reply_and_restarts_elsewhere() {
        let b = Board::startpos();
        let w = Weights::default();
        let cfg = UctConfig {
            playouts: 20_000,
            tree_reuse: true,
            ..UctConfig::default()
        };
        let mut tree = Tree::default();
        let first = uct_in(&mut tree, &b, 0, &w, &cfg, 7);
        assert_eq!(first, uct(&b, 0, &w, &cfg, 7));
        // The opponent answers with the reply the tree looked at most.
        let (_, played) = tree.root.clone().unwrap();
        let reply = tree.nodes[played as usize]
            .children
            .iter()
            .copied()
            .max_by_key(|&c| tree.nodes[c as usize].visits)
            .unwrap();
        let known = tree.nodes[reply as usize].visits;
        assert!(known > 0);
        let mut next = b.clone();
        next.play(first.best.unwrap());
        next.play(tree.nodes[reply as usize].mv.unwrap());
        let small = UctConfig { playouts: 100, ..cfg };
        let mut kept = tree.clone();
        let r = uct_in(&mut kept, &next, 2, &w, &small, 9);
        assert_eq!(kept.nodes[0].visits, known + 100);
        assert!(next.is_legal(r.best.unwrap()));
        // The root's children are a prefix of its candidates, which hold every move once.
        let root = &kept.nodes[0];
        for (i, &c) in root.children.iter().enumerate() {
            assert_eq!(kept.nodes[c as usize].mv, Some(root.candidates[i]));
        }
        let mut seen = root.candidates.clone();
        seen.sort_by_key(|m| (m.from, m.to, m.arrow));
        seen.dedup();
        assert_eq!(seen.len(), root.candidates.len());
        // A board that is not two plies below the root: a fresh search, as without a tree.
        let mut other = next.clone();
        other.play(candidate_moves(&other, 1)[0]);
        other.play(candidate_moves(&other, 1)[0]);
        let mut stale = tree.clone();
        assert_eq!(
            uct_in(&mut stale, &other, 4, &w, &small, 9),
            uct(&other, 4, &w, &small, 9)
        );
        assert_eq!(stale.nodes[0].visits, 100);
    }

    #[test]
    fn the_final_move_is_the_most_visited_or_the_best_mean_among_the_expanded() {
        let child = |from: u8, visits: u32, wins: f64| Node {
            visits,
            wins,
            ..Node::new(Some(Move {
                from,
                to: 0,
                arrow: 0,
            }))
        };
        let mut root = Node::new(None);
        root.children = vec![1, 2, 3, 4];
        // The most visited (1), a better mean with enough visits (2), the best mean from too
        // few visits (3), and 2's equal that comes later (4).
        let nodes = vec![
            root,
            child(1, 300, 150.0),
            child(2, 60, 42.0),
            child(3, 10, 9.0),
            child(4, 60, 42.0),
        ];
        let by_visits = UctConfig::default();
        assert!(!by_visits.final_by_mean);
        assert_eq!(final_choice(&nodes, &by_visits), Some(1));
        let by_mean = UctConfig {
            final_by_mean: true,
            expand_after: 40,
            ..by_visits
        };
        assert_eq!(final_choice(&nodes, &by_mean), Some(2));
        // Nothing visited often enough: the most visited.
        let strict = UctConfig {
            expand_after: 1000,
            ..by_mean
        };
        assert_eq!(final_choice(&nodes, &strict), Some(1));
    }

    #[test]
    fn alphabeta_deepens_within_its_nodes_and_repeats_itself() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let b = random_position(20, &mut rng);
        let w = Weights::default();
        let limits = AbLimits {
            depth: 64,
            nodes: 20_000,
            deadline: None,
            width: 24,
            root_width: 64,
        };
        let r = alphabeta(&b, 20, &w, limits);
        assert_eq!(r, alphabeta(&b, 20, &w, limits));
        assert!(r.depth >= 2 && r.nodes <= 20_000 + 64, "{r:?}");
        assert!(b.is_legal(r.best.unwrap()));
        // Depth 1 is the best of all moves by the evaluation alone.
        let one = alphabeta(&b, 20, &w, AbLimits { depth: 1, ..limits });
        let mut after = b.clone();
        let mut by_eval: Option<(f64, Move)> = None;
        b.for_each_step(|from, to, mut arrows| {
            while arrows != 0 {
                let m = Move {
                    from,
                    to,
                    arrow: arrows.trailing_zeros() as u8,
                };
                arrows &= arrows - 1;
                after.play(m);
                let v = -w.evaluate(&after, 21);
                after.unplay(m);
                if by_eval.map_or(true, |(bv, _)| v > bv) {
                    by_eval = Some((v, m));
                }
            }
        });
        assert_eq!(one.best, by_eval.map(|x| x.1));
        // A side with no move: no move, and no panic.
        let trapped = Board::from_fen("Q*6*Q/**6**/10/10/10/3qqqq3/10/10/**6**/Q*6*Q w").unwrap();
        assert_eq!(alphabeta(&trapped, 0, &w, limits).best, None);
    }
}
