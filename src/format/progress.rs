//! The progress bar's one line: what has been hashed of how much, how fast, and the file being
//! hashed, fitted to the terminal's width; the indicatif style that draws it, and the bytes that
//! put it on the terminal. `io::progress` runs the bar; every byte of it is made here, so it is
//! tested on strings.

use super::quote::quote_name_lossless;
use super::units;
use indicatif::{ProgressState, ProgressStyle};
use std::fmt::Write;
use unicode_width::UnicodeWidthChar;

/// Clears the line the bar is on and leaves the cursor at column 0: written when the bar is
/// lifted for output, and when the run ends (a signal included).
pub(crate) const ERASE: &[u8] = b"\r\x1b[K";

/// Where the run is, as the bar shows it.
pub(crate) struct BarState {
    pub done_bytes: u64,
    pub total_bytes: u64,
    pub done_files: u64,
    pub total_files: u64,
    /// The totals are lower bounds: the walk that counts them is still going, or a file with
    /// no size (a pipe, a device) is among them.
    pub counting: bool,
    pub seconds: f64,
    /// The file being hashed (see `io::progress` for which one).
    pub current: Option<Vec<u8>>,
    /// The terminal's width: the line is narrower.
    pub columns: usize,
}

/// indicatif's style for the bar: its template is one key, the whole [`line`], because
/// indicatif's own keys can neither give fields way to the name on a narrow terminal, nor
/// shorten a name from its start, nor mark a total still being counted. `state` says where the
/// run is when indicatif draws (it gives the time since the bar started).
pub(crate) fn style(
    state: impl Fn(&ProgressState) -> BarState + Send + Sync + Clone + 'static,
) -> ProgressStyle {
    ProgressStyle::with_template("{line}")
        .expect("a template of one key is valid")
        .with_key(
            "line",
            move |progress: &ProgressState, out: &mut dyn Write| {
                // indicatif writes into a String, which cannot fail.
                let _ = out.write_str(&line(&state(progress)));
            },
        )
}

/// The bytes that draw `line` over the terminal's current line, in one write: `\r`, the line,
/// and the erasure of what a longer line before it left (never a moment with the line blank).
pub(crate) fn redraw(line: &str) -> Vec<u8> {
    [b"\r", line.as_bytes(), b"\x1b[K"].concat()
}

/// Cells of the bar itself.
const BAR_CELLS: usize = 12;
/// Below this many columns for the name, the bar, the time left and the file count give way
/// (in that order) before the name is cut shorter.
const NAME_ROOM: usize = 20;

/// The line that shows `state`, narrower than its terminal, so the terminal never wraps it.
/// Fields, in order: `[####....]  42%  1.23 GB/2.90 GB  845.20 MB/s  0:02 left  12/40
/// files  NAME`; a `+` after a total says it is still being counted.
pub(crate) fn line(state: &BarState) -> String {
    let room = state.columns.saturating_sub(1);
    let more = if state.counting { "+" } else { "" };
    let known = !state.counting && state.total_bytes > 0;
    let fraction = if known {
        (state.done_bytes as f64 / state.total_bytes as f64).min(1.0)
    } else {
        0.0
    };
    let bytes_per_second = units::per_second(state.done_bytes, state.seconds);
    // Each field with whether it may give way to the name: (text, droppable order).
    let graph = known.then(|| {
        let filled = (fraction * BAR_CELLS as f64) as usize;
        format!("[{}{}]", "#".repeat(filled), ".".repeat(BAR_CELLS - filled))
    });
    let percent = known.then(|| format!("{:3}%", (fraction * 100.0) as u64));
    let left = (known && state.seconds >= 1.0 && bytes_per_second > 0.0).then(|| {
        let rest = state.total_bytes.saturating_sub(state.done_bytes) as f64;
        format!(
            "{} left",
            units::clock((rest / bytes_per_second).ceil() as u64)
        )
    });
    let sizes = format!(
        "{}/{}{more}",
        units::bytes(state.done_bytes),
        units::bytes(state.total_bytes)
    );
    let speed = units::rate(state.done_bytes, state.seconds);
    let files = format!(
        "{}/{}{more} files",
        units::count(state.done_files),
        units::count(state.total_files)
    );
    // The fields, and the order in which they give way to the name: the graph first, then the
    // time left, then the file count.
    let mut fields: Vec<(Option<String>, usize)> = vec![
        (graph, 1),
        (percent, usize::MAX),
        (Some(sizes), usize::MAX),
        (Some(speed), usize::MAX),
        (left, 2),
        (Some(files), 3),
    ];
    let name = state.current.as_deref().map(quote_name_lossless);
    let name_width = name.as_deref().map_or(0, width);
    let fixed = |fields: &[(Option<String>, usize)]| {
        let shown: Vec<&String> = fields.iter().filter_map(|(f, _)| f.as_ref()).collect();
        shown.iter().map(|f| f.len()).sum::<usize>() + 2 * shown.len().saturating_sub(1)
    };
    for give_way in 1..=3 {
        if fixed(&fields) + 2 + name_width.min(NAME_ROOM) <= room {
            break;
        }
        for field in fields.iter_mut().filter(|(_, order)| *order == give_way) {
            field.0 = None;
        }
    }
    let mut line: String = fields
        .into_iter()
        .filter_map(|(field, _)| field)
        .collect::<Vec<_>>()
        .join("  ");
    // The fields are ASCII: a terminal narrower than they are cuts them anywhere.
    line.truncate(room);
    if let Some(name) = name {
        let space = room.saturating_sub(line.len() + 2);
        // Fewer columns than this would show too little of a name to recognise it.
        if space >= 8 {
            line.push_str("  ");
            line.push_str(&shorten(&name, space));
        }
    }
    line
}

/// `text` in at most `columns` terminal columns: whole when it fits, else its end after `…`,
/// cut between characters (a wide character counts two columns).
pub(crate) fn shorten(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return text.to_string();
    }
    let mut kept = 0;
    let mut start = text.len();
    for (at, c) in text.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if kept + w + 1 > columns {
            break;
        }
        kept += w;
        start = at;
    }
    format!("…{}", &text[start..])
}

/// Terminal columns `text` takes (it holds no control characters: names are quoted first).
fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(current: Option<&[u8]>, columns: usize) -> BarState {
        BarState {
            done_bytes: 1_230_000_000,
            total_bytes: 2_900_000_000,
            done_files: 12,
            total_files: 1_040,
            counting: false,
            seconds: 1.5,
            current: current.map(<[u8]>::to_vec),
            columns,
        }
    }

    fn drawn(state: &BarState) -> String {
        let line = line(state);
        assert!(
            width(&line) < state.columns,
            "{line:?} is wider than {}",
            state.columns
        );
        line
    }

    #[test]
    fn a_wide_terminal_shows_every_field_and_the_whole_name() {
        let line = drawn(&state(Some(b"photos/2024/beach.jpg"), 200));
        assert_eq!(
            line,
            "[#####.......]   42%  1.23 GB/2.90 GB  820.00 MB/s  0:03 left  \
             12/1,040 files  photos/2024/beach.jpg"
        );
    }

    #[test]
    fn a_long_name_keeps_its_end() {
        let name = b"a/very/long/directory/name/that/goes/on/and/on/final-part.iso";
        for columns in [50, 60, 80, 100] {
            let line = drawn(&state(Some(name), columns));
            let (_, shown) = line.split_once('…').unwrap();
            assert!(name.ends_with(shown.as_bytes()), "{line}");
            assert!(shown.len() >= 7, "{line}");
            assert_eq!(width(&line), columns - 1, "{line}");
        }
        // Too narrow to show enough of a name to recognise it: none.
        let line = drawn(&state(Some(name), 40));
        assert_eq!(line, " 42%  1.23 GB/2.90 GB  820.00 MB/s");
    }

    #[test]
    fn totals_still_counted_are_marked_and_no_percentage_is_guessed() {
        let mut counting = state(None, 120);
        counting.counting = true;
        let line = drawn(&counting);
        assert_eq!(line, "1.23 GB/2.90 GB+  820.00 MB/s  12/1,040+ files");
    }

    #[test]
    fn control_characters_are_escaped_as_in_messages() {
        let line = drawn(&state(Some(b"evil\x1b[2Jname\n"), 200));
        assert!(line.ends_with("'evil'$'\\033''[2Jname'$'\\n'"), "{line:?}");
        assert!(!line.contains('\x1b'));
    }

    #[test]
    fn shortening_never_splits_a_character_and_counts_wide_ones_twice() {
        assert_eq!(shorten("abcdef", 6), "abcdef");
        assert_eq!(shorten("abcdef", 4), "…def");
        assert_eq!(shorten("ééééé", 3), "…éé");
        // Each of these takes two columns: 4 columns hold the mark and one of them.
        assert_eq!(shorten("日本語の名前", 4), "…前");
        assert_eq!(shorten("日本語の名前", 5), "…名前");
    }

    #[test]
    fn a_line_is_drawn_over_the_last_in_one_write() {
        assert_eq!(redraw("1.23 GB/2.90 GB"), b"\r1.23 GB/2.90 GB\x1b[K");
    }

    #[test]
    fn a_narrow_terminal_drops_fields_before_it_overflows() {
        for columns in 1..60 {
            drawn(&state(Some("répertoire/日本.bin".as_bytes()), columns));
        }
    }
}
