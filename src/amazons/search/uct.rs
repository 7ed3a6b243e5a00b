//! UCT with UCB1 (seed 004): node expansion after a visit threshold, candidate pruning with
//! progressive widening, playouts cut short and scored by the evaluation, and a tree kept
//! between a game's moves.

use super::candidates::{candidate_moves, moves_by_evaluation, playout_move};
use crate::amazons::board::{Board, Move};
use crate::amazons::eval::Weights;
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
    /// number of playouts, and it makes the weights matter more (docs/amazons.md, Amazons strength).
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
            playout_scale: k.playout_scale as f64 / 10.0,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
