//! A game in progress: the board plus its history, and the rulings that end a game.
//!
//! 1. The side to move with no legal move loses (checkmate and stalemate alike).
//! 2. On the third occurrence of a position, the moves since its first occurrence are
//!    judged: a side that checked with every move while the other did not loses
//!    (perpetual check); otherwise a side that chased with every move while the other did
//!    not loses (perpetual chase); otherwise the game is drawn.
//! 3. 120 plies without a capture draw.
//!
//! A *chase* is a move after which the mover newly threatens to capture, legally and with a
//! non-king, non-pawn piece, an enemy piece that is unprotected, or a rook with a horse or
//! cannon, or a rook, horse or cannon with an advisor or elephant. Kings and pawns that have
//! not crossed the river are never targets. Two pieces of the same kind attacking each other
//! is an exchange offer, not a chase. A move chases the pieces it leaves threatened that were
//! not threatened before it. The chased piece is followed as it moves: a side chases
//! perpetually when one and the same piece is newly chased by every one of its moves in the
//! cycle. As in strong engines (Pikafish), a cycle with checks in it that is not a perpetual
//! check is a draw.

use super::attacks;
use super::bitboard::Bitboard;
use super::board::{Board, Undo};
use super::fen::FenError;
use super::moves::{Move, MoveList, MoveParseError};
use super::types::{Color, Role};
use std::fmt;

/// Plies without a capture after which the game is drawn.
pub const NO_CAPTURE_LIMIT: u32 = 120;

/// Plies without a capture after which an engine may claim the draw before the limit: the
/// 50-move rule many engines play by (ElephantEye answers `nobestmove` there).
pub const CLAIM_NO_CAPTURE: u32 = 100;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// The loser was in check with no legal move.
    Checkmate,
    /// The loser had no legal move without being in check (a loss in Xiangqi).
    Stalemate,
    /// The loser checked on every move of a threefold repetition.
    PerpetualCheck,
    /// The loser chased the same piece on every move of a threefold repetition.
    PerpetualChase,
    /// A threefold repetition with neither side (or both) perpetually checking or chasing.
    Repetition,
    /// 120 plies without a capture.
    NoCaptureLimit,
}

impl Termination {
    /// The ruling in words ("checkmate", "perpetual check").
    pub fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::PerpetualCheck => "perpetual check",
            Termination::PerpetualChase => "perpetual chase",
            Termination::Repetition => "repetition",
            Termination::NoCaptureLimit => "120 plies without capture",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended: the winner (none for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub winner: Option<Color>,
    pub termination: Termination,
}

impl Outcome {
    fn win(winner: Color, termination: Termination) -> Outcome {
        Outcome {
            winner: Some(winner),
            termination,
        }
    }

    fn draw(termination: Termination) -> Outcome {
        Outcome {
            winner: None,
            termination,
        }
    }
}

/// A move and what undoes it: one step of a game's (or a search path's) history.
#[derive(Clone, Copy, Debug)]
pub struct Ply {
    pub mv: Move,
    pub undo: Undo,
}

/// A game: the current board and every move that led to it from the start position.
#[derive(Clone, Debug)]
pub struct Xiangqi {
    board: Board,
    history: Vec<Ply>,
}

impl Xiangqi {
    /// A new game from the standard start position.
    pub fn new() -> Xiangqi {
        Xiangqi::from_board(Board::startpos())
    }

    /// A new game from any valid position.
    pub fn from_board(board: Board) -> Xiangqi {
        Xiangqi {
            board,
            history: Vec::new(),
        }
    }

    /// A new game from a FEN.
    pub fn from_fen(fen: &str) -> Result<Xiangqi, FenError> {
        Ok(Xiangqi::from_board(Board::from_fen(fen)?))
    }

    /// The current position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The moves played so far.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.history.iter().map(|p| p.mv)
    }

    /// Plies played since the start position.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// Legal moves in the current position.
    pub fn legal_moves(&self) -> MoveList {
        self.board.legal_moves()
    }

    /// Plays a move the caller knows to be legal.
    pub fn play(&mut self, mv: Move) {
        debug_assert!(self.board.is_legal(mv), "{mv} is illegal in {}", self.board.fen());
        let undo = self.board.make(mv);
        self.history.push(Ply { mv, undo });
    }

    /// Parses an ICCS move, checks it is legal here, and plays it.
    pub fn play_iccs(&mut self, text: &str) -> Result<Move, MoveParseError> {
        let mv = self.board.parse_move(text)?;
        self.play(mv);
        Ok(mv)
    }

    /// How many times the current position has occurred, counting now.
    pub fn repetitions(&self) -> usize {
        self.previous_occurrences().count() + 1
    }

    /// History indices (plies) at which the current position stood before, latest first.
    /// Only positions since the last capture, with the same side to move, can repeat.
    fn previous_occurrences(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.history.len();
        let window = (self.board.halfmoves() as usize).min(n);
        let hash = self.board.hash();
        // The hash before ply i is stored in that ply's undo record.
        (2..=window)
            .step_by(2)
            .map(move |back| n - back)
            .filter(move |&i| self.history[i].undo.hash_before() == hash)
    }

    /// Whether the game is over, and how.
    pub fn outcome(&self) -> Option<Outcome> {
        let to_move = self.board.turn();
        if !self.board.has_legal_move() {
            let t = if self.board.in_check() {
                Termination::Checkmate
            } else {
                Termination::Stalemate
            };
            return Some(Outcome::win(to_move.flip(), t));
        }
        let earlier: Vec<usize> = self.previous_occurrences().collect();
        if earlier.len() >= 2 {
            let first = *earlier.last().expect("two occurrences");
            return Some(self.judge_cycle(first));
        }
        if self.board.halfmoves() >= NO_CAPTURE_LIMIT {
            return Some(Outcome::draw(Termination::NoCaptureLimit));
        }
        None
    }

    /// The rule under which the side to move may claim a draw in this position (an outside
    /// engine that answers with no move claims one), or `None` when a claim would be false.
    pub fn claimable_draw(&self) -> Option<&'static str> {
        let attackers = [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
            .iter()
            .any(|&r| !self.board.by_role(r).is_empty());
        if !attackers {
            Some("draw claimed: no attacking pieces")
        } else if self.board.halfmoves() >= CLAIM_NO_CAPTURE {
            Some("draw claimed: 100 plies without capture")
        } else {
            None
        }
    }

    /// What each side did through the repetition cycle that ends at the current position,
    /// if the position has occurred three times.
    pub fn cycle_report(&self) -> Option<CycleReport> {
        let earlier: Vec<usize> = self.previous_occurrences().collect();
        (earlier.len() >= 2).then(|| self.examine_cycle(*earlier.last().expect("two occurrences")))
    }

    /// Judges the moves from history index `first` to now, which returned to the same position.
    fn judge_cycle(&self, first: usize) -> Outcome {
        self.examine_cycle(first).outcome()
    }

    fn examine_cycle(&self, first: usize) -> CycleReport {
        examine_cycle(&self.board, &self.history[first..])
    }

    /// The moves played, with their undo records (oldest first).
    pub fn history(&self) -> &[Ply] {
        &self.history
    }
}

/// Examines the cycle of `plies` that ended in `board` (which equals the position before the
/// first ply): who checked with every move, and who chased one piece with every move.
pub fn examine_cycle(board: &Board, plies: &[Ply]) -> CycleReport {
    let mut start = board.clone();
    for ply in plies.iter().rev() {
        start.unmake(ply.mv, ply.undo);
    }
    let mut report = CycleReport {
        plies: plies.len(),
        checked_every_move: [true; 2],
        any_check: false,
        chased: [Bitboard::EMPTY; 2],
    };
    let mut b = start.clone();
    for ply in plies {
        let mover = b.turn();
        b.make(ply.mv);
        if b.in_check() {
            report.any_check = true;
        } else {
            report.checked_every_move[mover.index()] = false;
        }
    }
    // With a check in the cycle, chases cannot change the ruling: skip the costly part.
    if report.any_check {
        return report;
    }
    // Per side: the enemy pieces it newly chased with every move so far, followed square
    // by square as they move.
    let mut chased = [Bitboard::FULL; 2];
    let mut b = start;
    for ply in plies {
        let mover = b.turn();
        let before = b.clone();
        b.make(ply.mv);
        let tracked = &mut chased[mover.flip().index()];
        if tracked.contains(ply.mv.from()) {
            *tracked = tracked.without(ply.mv.from()).with(ply.mv.to());
        }
        chased[mover.index()] &= threats(&b, mover) & !threats(&before, mover);
    }
    report.chased = chased;
    report
}

/// What each side did through a repetition cycle (indexed by `Color::index`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CycleReport {
    /// Plies from the first occurrence of the position to now.
    pub plies: usize,
    /// Whether the side gave check with every one of its moves.
    pub checked_every_move: [bool; 2],
    /// Whether any move in the cycle gave check.
    pub any_check: bool,
    /// Enemy pieces (on their current squares) the side newly chased with every move; empty
    /// when the cycle has a check (chases are then not judged).
    pub chased: [Bitboard; 2],
}

impl CycleReport {
    /// Whether `color` chased one piece perpetually through a check-free cycle.
    pub fn chases(&self, color: Color) -> bool {
        !self.any_check && self.chased[color.index()].any()
    }

    /// The ruling: perpetual check loses, else a one-sided perpetual chase loses, else a draw.
    /// A cycle with checks that is not a perpetual check is a draw, as in strong engines.
    pub fn outcome(&self) -> Outcome {
        let [red_checks, black_checks] = self.checked_every_move;
        if red_checks != black_checks {
            let loser = if red_checks { Color::Red } else { Color::Black };
            return Outcome::win(loser.flip(), Termination::PerpetualCheck);
        }
        let (red, black) = (self.chases(Color::Red), self.chases(Color::Black));
        if red != black {
            let loser = if red { Color::Red } else { Color::Black };
            return Outcome::win(loser.flip(), Termination::PerpetualChase);
        }
        Outcome::draw(Termination::Repetition)
    }
}

impl Default for Xiangqi {
    fn default() -> Self {
        Xiangqi::new()
    }
}

/// Whether a capture of the piece on `target` by `attacker`'s role counts as a chase
/// regardless of protection (a bigger piece attacked by a smaller one).
fn attacks_bigger(attacker: Role, target: Role) -> bool {
    match attacker {
        Role::Horse | Role::Cannon => target == Role::Rook,
        Role::Advisor | Role::Elephant => matches!(target, Role::Rook | Role::Horse | Role::Cannon),
        _ => false,
    }
}

/// The board with `color` to move (a pass if needed); used to ask "could `color` capture".
fn with_turn(board: &Board, color: Color) -> Board {
    let mut b = board.clone();
    if b.turn() != color {
        b.make_null();
    }
    b
}

/// Enemy pieces that `color` threatens in the chase sense (see the module comment).
fn threats(board: &Board, color: Color) -> Bitboard {
    let them = color.flip();
    let mover = with_turn(board, color);
    let defender = with_turn(board, them);
    let crossed_pawns = board.pieces(them, Role::Pawn) & !attacks::own_half(them);
    let targets =
        (board.by_color(them) & !board.by_role(Role::King) & !board.by_role(Role::Pawn)) | crossed_pawns;
    let mut out = Bitboard::EMPTY;
    for a in board.by_color(color) & !board.by_role(Role::King) & !board.by_role(Role::Pawn) {
        let piece = board.piece_at(a).expect("attacker on its square");
        for t in board.piece_attacks(a, piece, board.occupancy()) & targets & !out {
            let capture = Move::new(a, t);
            if !mover.is_legal(capture) {
                continue;
            }
            let target = board.piece_at(t).expect("target on its square").role;
            // Two pieces of one kind attacking each other offer an exchange, not a chase.
            let mutual = target == piece.role && defender.is_legal(Move::new(t, a));
            if attacks_bigger(piece.role, target) || (!mutual && !protected_after_capture(&mover, capture)) {
                out = out.with(t);
            }
        }
    }
    out
}

/// Whether, after the side to move in `board` plays `capture`, the opponent can recapture.
fn protected_after_capture(board: &Board, capture: Move) -> bool {
    let mut b = board.clone();
    b.make(capture);
    !b.legal_moves_to(Bitboard::from_square(capture.to())).is_empty()
}
