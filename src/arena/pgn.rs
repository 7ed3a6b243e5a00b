//! PGN: the tags engine authors' tools read (FEN, result, termination) and the moves in the
//! game's notation (ICCS coordinates for Xiangqi).

use crate::game::{Game, GameRecord, Seat};
use std::fmt::Write;

/// The PGN result token of a game.
pub fn result_token<M>(record: &GameRecord<M>) -> &'static str {
    match record.winner {
        Some(Seat::First) => "1-0",
        Some(Seat::Second) => "0-1",
        None => "1/2-1/2",
    }
}

/// The winner a PGN result token names (`None` for a draw); `None` for no result token.
pub fn winner_of(token: &str) -> Option<Option<Seat>> {
    match token {
        "1-0" => Some(Some(Seat::First)),
        "0-1" => Some(Some(Seat::Second)),
        "1/2-1/2" => Some(None),
        _ => None,
    }
}

/// One game of `G` as PGN. No date or clock is written, so the same games give the same bytes.
pub fn game<G: Game>(
    record: &GameRecord<G::Move>,
    event: &str,
    round: usize,
    first: &str,
    second: &str,
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
    tag(&mut s, G::SEATS[0], first);
    tag(&mut s, G::SEATS[1], second);
    tag(&mut s, "Result", result);
    tag(&mut s, "FEN", &record.start_fen);
    if let Some(format) = G::PGN_FORMAT {
        tag(&mut s, "Format", format);
    }
    tag(&mut s, "Termination", &record.ending.to_string());
    tag(&mut s, "PlyCount", &record.plies().to_string());
    s.push('\n');
    // Move numbers count the first seat's moves; a game that starts with the second seat to
    // move opens with "1. ...".
    let second_first = record.starts == Seat::Second;
    let mut line = String::new();
    let mut tokens: Vec<String> = Vec::new();
    for (i, mv) in record.moves.iter().enumerate() {
        let ply = i + second_first as usize;
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

/// One game read back from a PGN file: its tags, and whether its movetext ends with its
/// result (a game cut short by a crash mid-write does not).
#[derive(Clone, Debug, Default)]
pub struct ReadGame {
    pub tags: std::collections::BTreeMap<String, String>,
    pub complete: bool,
}

impl ReadGame {
    /// A tag's value, if the game has it.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.get(key).map(String::as_str)
    }
}

/// Why a text is not PGN as [`game`] writes it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    #[error("line {line}: not a PGN tag pair: {text}")]
    Tag { line: usize, text: String },
    #[error("line {0}: moves before any tag")]
    MovesFirst(usize),
}

/// The games of a PGN text as [`game`] writes them: tag pairs, then the movetext ending with
/// the result. A line that is neither a tag pair nor movetext after tags is an error naming it.
pub fn read(text: &str) -> Result<Vec<ReadGame>, PgnError> {
    let mut games: Vec<ReadGame> = Vec::new();
    let mut in_moves = false;
    let mut last_token = String::new();
    let finish = |games: &mut Vec<ReadGame>, last: &str| {
        if let Some(g) = games.last_mut() {
            g.complete = g.tag("Result") == Some(last);
        }
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            if in_moves || games.is_empty() {
                finish(&mut games, &last_token);
                games.push(ReadGame::default());
                in_moves = false;
                last_token.clear();
            }
            let (key, value) = tag_pair(line).ok_or_else(|| PgnError::Tag {
                line: n + 1,
                text: line.to_string(),
            })?;
            games
                .last_mut()
                .expect("a game was started")
                .tags
                .insert(key, value);
        } else {
            if games.is_empty() {
                return Err(PgnError::MovesFirst(n + 1));
            }
            in_moves = true;
            if let Some(t) = line.split_whitespace().last() {
                last_token = t.to_string();
            }
        }
    }
    finish(&mut games, &last_token);
    Ok(games)
}

/// `[Key "value"]`, with the value's escapes undone.
fn tag_pair(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (key, rest) = inner.split_once(' ')?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        value.push(if c == '\\' { chars.next()? } else { c });
    }
    Some((key.to_string(), value))
}
