//! Perft: counting the leaves of the legal move tree, the move generator's correctness check.

use super::board::Board;
use super::moves::Move;

/// The number of leaf nodes `depth` plies below `board`, counting the last ply in bulk.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => board.count_legal() as u64,
        _ => {
            let mut nodes = 0;
            for &mv in board.legal_moves().iter() {
                let undo = board.make(mv);
                nodes += perft(board, depth - 1);
                board.unmake(mv, undo);
            }
            nodes
        }
    }
}

/// Like [`perft`], but makes and unmakes every leaf move instead of counting in bulk:
/// the speed of full make/unmake, as a search experiences it.
pub fn perft_full(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    for &mv in board.legal_moves().iter() {
        let undo = board.make(mv);
        nodes += perft_full(board, depth - 1);
        board.unmake(mv, undo);
    }
    nodes
}

/// Perft split by root move, in move-generation order.
pub fn divide(board: &mut Board, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs at least one ply");
    board
        .legal_moves()
        .iter()
        .map(|&mv| {
            let undo = board.make(mv);
            let n = perft(board, depth - 1);
            board.unmake(mv, undo);
            (mv, n)
        })
        .collect()
}
