//! Xiangqi PGN: the tags engine authors' tools read (FEN, result, termination) and the moves in
//! ICCS coordinates.

use crate::game::{Ending, Game, GameRecord};
use crate::xiangqi::Color;
use std::fmt::Write;

/// The PGN result token of a game.
pub fn result_token<M>(record: &GameRecord<M>) -> &'static str {
    match record.winner {
        Some(Color::Red) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
}

/// One game of `G` as PGN. No date or clock is written, so the same games give the same bytes.
pub fn game<G: Game>(
    record: &GameRecord<G::Move>,
    event: &str,
    round: usize,
    red: &str,
    black: &str,
) -> String {
    let mut s = String::new();
    let result = result_token(record);
    let tag = |s: &mut String, k: &str, v: &str| {
        let v = v.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(s, "[{k} \"{v}\"]").expect("write to String");
    };
    tag(&mut s, "Game", G::PGN_GAME);
    tag(&mut s, "Event", event);
    tag(&mut s, "Site", "qitune");
    tag(&mut s, "Round", &round.to_string());
    tag(&mut s, "Red", red);
    tag(&mut s, "Black", black);
    tag(&mut s, "Result", result);
    tag(&mut s, "FEN", &record.start_fen);
    if let Some(format) = G::PGN_FORMAT {
        tag(&mut s, "Format", format);
    }
    let termination = match record.ending {
        Ending::Rules(t) => t.to_string(),
        other => other.to_string(),
    };
    tag(&mut s, "Termination", &termination);
    tag(&mut s, "PlyCount", &record.plies().to_string());
    s.push('\n');
    // Move numbers count Red's moves; a game that starts with Black to move opens with "1. ...".
    let black_first = record.start_fen.split_whitespace().nth(1) == Some("b");
    let mut line = String::new();
    let mut tokens: Vec<String> = Vec::new();
    for (i, mv) in record.moves.iter().enumerate() {
        let ply = i + black_first as usize;
        if ply % 2 == 0 {
            tokens.push(format!("{}.", ply / 2 + 1));
        } else if i == 0 {
            tokens.push("1...".to_string());
        }
        tokens.push(mv.to_string());
    }
    tokens.push(result.to_string());
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    s.push_str(&line);
    s.push_str("\n\n");
    s
}
