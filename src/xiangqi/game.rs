//! Xiangqi in the arena and the GA: the [`Game`] implementation over the rules core and the
//! searcher.

use super::eval::Weights;
use super::search::{Limits, Searcher};
use super::time::{TimeControl, TimeManager};
use super::{Board, Color, Move, Xiangqi};
use crate::game::{Engine, Game, Limit, Seat, Thought, Verdict};
use crate::params::{Params, Specs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Xiangqi, the main game. Red has the first seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XiangqiGame;

impl Game for XiangqiGame {
    type Board = Board;
    type Move = Move;
    type Weights = Weights;
    type State = Xiangqi;
    type Engine = Searcher;
    const NAME: &'static str = super::eval::GAME;
    const PGN_GAME: &'static str = "Chinese Chess";
    const PGN_FORMAT: Option<&'static str> = Some("ICCS");
    const SEATS: [&'static str; 2] = ["Red", "Black"];
    const PICTURE: Option<crate::game::BoardPicture> = Some(crate::game::BoardPicture {
        files: 9,
        ranks: 10,
        note: "Red's side at the bottom; files f-i mirror d-a.",
        squares: super::eval::pst_squares,
    });
    const PLAYER_NAMES: &'static [&'static str] = &["material"];

    fn specs() -> Specs {
        super::eval::specs()
    }

    const RETIRED: &'static [crate::params::Retired] = super::knobs::RETIRED;

    fn weights(params: &Params) -> Result<Weights, crate::params::WeightFileError> {
        Weights::new(params)
    }

    fn describe(name: &str) -> String {
        super::eval::describe(name)
    }

    fn named_player(name: &str) -> Option<Weights> {
        (name == "material").then(super::eval::material_only)
    }

    type PositionError = super::FenError;

    fn parse_position(text: &str) -> Result<Board, super::FenError> {
        // EPD lines carry opcodes after the side to move: fall back to the first two fields.
        Board::from_fen(text).or_else(|e| {
            let fields: Vec<&str> = text.split_whitespace().take(2).collect();
            Board::from_fen(&fields.join(" ")).map_err(|_| e)
        })
    }

    fn fen(board: &Board) -> String {
        board.fen()
    }

    fn random_opening(seed: u64, plies: usize) -> Board {
        random_opening(seed, plies)
    }

    fn start(board: &Board) -> Xiangqi {
        Xiangqi::from_board(board.clone())
    }

    fn board(state: &Xiangqi) -> &Board {
        state.board()
    }

    fn to_move(board: &Board) -> Seat {
        seat(board.turn())
    }

    fn verdict(state: &Xiangqi) -> Option<Verdict> {
        state.outcome().map(|o| Verdict {
            winner: o.winner.map(seat),
            reason: o.termination.name(),
        })
    }

    fn claimable_draw(state: &Xiangqi) -> Option<&'static str> {
        state.claimable_draw()
    }

    fn is_legal(state: &Xiangqi, mv: Move) -> bool {
        state.board().is_legal(mv)
    }

    fn play(state: &mut Xiangqi, mv: Move) {
        state.play(mv);
    }

    fn parse_move(state: &Xiangqi, text: &str) -> Option<Move> {
        state.board().parse_move(text).ok()
    }

    const LINEAR_EVALUATION: bool = true;

    fn features(board: &Board, out: &mut Vec<(u32, f32)>) -> bool {
        if !quiet(board) {
            return false;
        }
        super::eval::features(board, out);
        true
    }

    fn engine(weights: &Weights, tt_mb: usize, _start: &Board) -> Searcher {
        Searcher::new(weights.clone(), tt_mb)
    }
}

/// Red has the first seat.
pub fn seat(color: Color) -> Seat {
    match color {
        Color::Red => Seat::First,
        Color::Black => Seat::Second,
    }
}

impl Engine<XiangqiGame> for Searcher {
    fn think(&mut self, state: &Xiangqi, limit: Limit) -> Thought<Move> {
        let (limits, planned) = match limit {
            Limit::Nodes(n) => (Limits::nodes(n), None),
            Limit::Depth(d) => (Limits::depth(d), None),
            Limit::Clock { left, increment } => {
                let control = TimeControl::Clock {
                    left,
                    increment,
                    moves_to_go: None,
                };
                let limits = Limits {
                    time: Some(control),
                    ..Limits::default()
                };
                let planned = TimeManager::new(control, self.weights().knobs().time()).expected();
                (limits, Some(planned))
            }
        };
        let result = self.search(state, &limits, |_| {});
        Thought {
            best: result.best,
            score: result.score,
            nodes: result.nodes,
            depth: result.depth,
            planned,
        }
    }
}

/// Whether a position is a fair sample of the static evaluation: the side to move is not
/// in check and has no capture that plainly wins material (an undefended piece, or a rook
/// that a lesser piece attacks), so a search would not change the score at once.
fn quiet(board: &Board) -> bool {
    if board.in_check() {
        return false;
    }
    let us = board.turn();
    let them = us.flip();
    let targets = board.by_color(them) & !board.by_role(super::Role::King);
    let attacked = targets & board.attack_map(us);
    if !(attacked & !board.attack_map(them)).is_empty() {
        return false;
    }
    let mut rooks = attacked & board.by_role(super::Role::Rook);
    rooks.all(|sq| (board.attackers_of(us, sq) & !board.by_role(super::Role::Rook)).is_empty())
}

/// Seeded random plies from the start position: a different, reproducible opening per pair
/// when no position file is given.
pub fn random_opening(seed: u64, plies: usize) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::startpos();
    for _ in 0..plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            break;
        }
        board.make(moves[rng.gen_range(0..moves.len())]);
    }
    board
}
