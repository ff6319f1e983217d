//! Reading a manifest line by line, as it arrives, in bounded memory.
//!
//! `--check` verifies each line before it needs the next one, as coreutils does, so an endless
//! manifest (`yes LINE | cksum -c`) is checked, and its output written, as it streams in. The
//! reader tells a line already in its buffer ([`LineReader::buffered_line`], never a system
//! call) from one it must wait for ([`LineReader::read_line`]): the checker hashes the lines at
//! hand side by side, and writes out their results before it blocks on the input again.

use std::io::{self, Read};

/// How much is read at a time; a longer line grows the buffer to fit, as `getline` does.
const CAPACITY: usize = 64 * 1024;

/// The longest line kept: 16 MiB, thousands of times the longest a checksum line can be (a
/// digest and a path, whose every component is at most 255 bytes). A longer line is read
/// through and handed out as [`OVERLONG`], so memory stays bounded whatever the input (a 4 GiB
/// disk image given to `-c` by mistake had taken 8 GB, and aborted under `ulimit -v`).
const LONGEST_LINE: usize = 16 * 1024 * 1024;

/// What stands for a line too long to keep: one NUL, which no format takes for a checksum
/// line (where an empty line would be skipped), so it counts as improperly formatted, as the
/// long line itself does in coreutils.
const OVERLONG: &[u8] = b"\0";

const BOM: &[u8] = b"\xef\xbb\xbf";

/// The error of a line that does not end within the limit set by
/// [`ending_within`](LineReader::ending_within): the program stops reading there.
#[derive(Debug)]
pub(crate) struct LineTooLong;

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("line too long")
    }
}

impl std::error::Error for LineTooLong {}

impl LineTooLong {
    /// Whether `error` is the reader's [`LineTooLong`], not a failed read.
    pub(crate) fn is(error: &io::Error) -> bool {
        error
            .get_ref()
            .is_some_and(|inner| inner.is::<LineTooLong>())
    }
}

/// Lines split on a terminator: one CR before a newline is dropped (unless
/// [`keeping_carriage_returns`](LineReader::keeping_carriage_returns)), and (when asked) a
/// UTF-8 byte-order mark at the very start. The last line need not be terminated; nothing after a
/// final terminator is a line.
pub struct LineReader<R: Read> {
    inner: R,
    buffer: Vec<u8>,
    /// The unread bytes are `buffer[start..end]`.
    start: usize,
    end: usize,
    terminator: u8,
    /// The byte-order mark may still be ahead (nothing has been handed out yet).
    strip_bom: bool,
    /// A CR before a newline is dropped.
    strip_cr: bool,
    eof: bool,
    /// A read error met after part of a line, reported after that part is handed out (as
    /// `getline` hands out what it has before the error shows).
    error: Option<io::Error>,
    /// The line being read is longer than [`LONGEST_LINE`]: its bytes are dropped as they
    /// come, and it is handed out as [`OVERLONG`].
    overlong: bool,
    /// The buffer up to here holds no terminator after `start`: a long line is searched once,
    /// not again at each read.
    searched: usize,
    /// The most bytes a line may take, its terminator included, before reading stops with
    /// [`LineTooLong`]; `None`: any line is read through.
    limit: Option<usize>,
}

impl<R: Read> LineReader<R> {
    pub fn new(inner: R, terminator: u8, strip_bom: bool) -> LineReader<R> {
        LineReader {
            inner,
            buffer: vec![0; CAPACITY],
            start: 0,
            end: 0,
            terminator,
            strip_bom,
            strip_cr: terminator == b'\n',
            eof: false,
            error: None,
            overlong: false,
            searched: 0,
            limit: None,
        }
    }

    /// Where the next line ends (the terminator's index), if the buffer holds all of it within
    /// the limit.
    fn terminator_at(&self) -> Option<usize> {
        let to = match self.limit {
            Some(limit) => self.end.min(self.start + limit),
            None => self.end,
        };
        let from = self.start.max(self.searched).min(to);
        self.buffer[from..to]
            .iter()
            .position(|&b| b == self.terminator)
            .map(|i| from + i)
    }

    /// Whether the buffer holds more bytes of the next line than the limit lets it take, and
    /// none of them within the limit is its terminator.
    fn past_limit(&self) -> bool {
        self.limit
            .is_some_and(|limit| self.end - self.start > limit && self.terminator_at().is_none())
    }

    /// Stops at a line that takes more than `limit` bytes, its terminator included, as a
    /// program with a fixed line buffer does (xxhsum): [`read_line`](Self::read_line) fails
    /// with [`LineTooLong`] as soon as the line's byte after `limit` is read, and the input
    /// ends there. A last line without a terminator may take all `limit` bytes. `limit` is
    /// below [`LONGEST_LINE`], so no line is read through.
    pub(crate) fn ending_within(mut self, limit: usize) -> LineReader<R> {
        self.limit = Some(limit);
        self
    }

    /// Hands out each line whole, with any CR before its newline: for a program that reads
    /// the CR as part of the line (xxhsum).
    pub fn keeping_carriage_returns(mut self) -> LineReader<R> {
        self.strip_cr = false;
        self
    }

    /// Whether the next call to [`read_line`](Self::read_line) can answer without reading.
    pub fn has_buffered_line(&self) -> bool {
        self.eof || self.error.is_some() || self.terminator_at().is_some() || self.past_limit()
    }

    /// The next line if the buffer already holds it whole; never reads.
    pub fn buffered_line(&mut self) -> Option<&[u8]> {
        let end = self.terminator_at()?;
        Some(self.take(end, end + 1))
    }

    /// The rest of the input after the lines handed out: what the buffer holds, then what was
    /// not read yet. The lines end there: a program that reads its manifest and a file from
    /// one stream (xxhsum hashing `stdin` while it reads its manifest from there) takes the
    /// rest as the file's contents.
    pub(crate) fn rest(&mut self) -> impl Read + '_ {
        let (start, end) = (self.start, self.end);
        self.start = end;
        self.eof = true;
        self.overlong = false;
        self.error = None;
        self.buffer[start..end].chain(&mut self.inner)
    }

    /// Drops what the buffer holds of a line too long to keep.
    fn drop_overlong(&mut self) {
        self.overlong = true;
        self.start = 0;
        self.end = 0;
        self.searched = 0;
    }

    /// The next line, reading as long as it takes; `None` at the end of the input.
    pub fn read_line(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            if let Some(end) = self.terminator_at() {
                return Ok(Some(self.take(end, end + 1)));
            }
            if self.past_limit() {
                // Nothing after the line is read: the input ends here.
                self.start = self.end;
                self.eof = true;
                self.error = None;
                return Err(io::Error::new(io::ErrorKind::InvalidData, LineTooLong));
            }
            if self.error.is_some() && self.start == self.end {
                self.eof = true;
                return Err(self.error.take().expect("checked"));
            }
            if self.eof || self.error.is_some() {
                if self.start == self.end && !std::mem::take(&mut self.overlong) {
                    return Ok(None);
                }
                let end = self.end;
                return Ok(Some(self.take(end, end)));
            }
            self.searched = self.end;
            if self.end - self.start >= LONGEST_LINE {
                self.drop_overlong();
            }
            self.fill();
        }
    }

    /// Reads more after what the buffer holds, making room first.
    fn fill(&mut self) {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.searched = self.searched.saturating_sub(self.start);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buffer.len() {
            self.buffer.resize(self.buffer.len() * 2, 0);
        } else if self.end == 0 && self.buffer.len() > CAPACITY {
            // A long line is gone: give its memory back.
            self.buffer.truncate(CAPACITY);
            self.buffer.shrink_to_fit();
        }
        let read = loop {
            match self.inner.read(&mut self.buffer[self.end..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                read => break read,
            }
        };
        match read {
            Ok(0) => self.eof = true,
            Ok(n) => self.end += n,
            Err(e) => self.error = Some(e),
        }
    }

    /// Hands out `buffer[start..line_end]` and moves past `next`; [`OVERLONG`] if the line was
    /// too long to keep.
    fn take(&mut self, line_end: usize, next: usize) -> &[u8] {
        let mut start = self.start;
        self.start = next;
        if std::mem::take(&mut self.overlong) {
            self.strip_bom = false;
            return OVERLONG;
        }
        if std::mem::take(&mut self.strip_bom) && self.buffer[start..line_end].starts_with(BOM) {
            start += BOM.len();
        }
        let mut line = &self.buffer[start..line_end];
        if self.strip_cr {
            line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its data a few bytes a read, then fails if asked to.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
        fail_at_end: bool,
    }

    impl Trickle {
        /// `data` handed out `step` bytes a read, then EIO at the end if `fail_at_end`.
        fn new(data: &[u8], step: usize, fail_at_end: bool) -> Trickle {
            Trickle {
                data: data.to_vec(),
                at: 0,
                step,
                fail_at_end,
            }
        }
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.data.len() && self.fail_at_end {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            let n = self.step.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn lines(data: &[u8], terminator: u8, bom: bool, step: usize) -> Vec<Vec<u8>> {
        let source = Trickle::new(data, step, false);
        let mut reader = LineReader::new(source, terminator, bom);
        let mut lines = Vec::new();
        while let Some(line) = reader.read_line().unwrap() {
            lines.push(line.to_vec());
        }
        lines
    }

    #[test]
    fn splits_as_a_whole_read_would() {
        for step in [1, 2, 3, 7, 1 << 20] {
            assert_eq!(lines(b"a\r\nb\n", b'\n', false, step), [&b"a"[..], b"b"]);
            assert_eq!(lines(b"a\r\r\n", b'\n', false, step), [&b"a\r"[..]]);
            assert_eq!(lines(b"a\n\nb", b'\n', false, step), [&b"a"[..], b"", b"b"]);
            assert_eq!(lines(b"\xef\xbb\xbfa", b'\n', true, step), [&b"a"[..]]);
            assert_eq!(
                lines(b"\xef\xbb\xbfa", b'\n', false, step),
                [&b"\xef\xbb\xbfa"[..]]
            );
            assert_eq!(lines(b"a\n\xef\xbb\xbfb", b'\n', true, step).len(), 2);
            assert_eq!(
                lines(b"a\nb\0c\0", b'\0', false, step),
                [&b"a\nb"[..], b"c"]
            );
            assert_eq!(lines(b"a\r\0", b'\0', false, step), [&b"a\r"[..]]);
            assert!(lines(b"", b'\n', true, step).is_empty());
        }
    }

    /// A line longer than [`LONGEST_LINE`] comes out as [`OVERLONG`], whether a terminator or
    /// the end of the input ends it, the lines around it whole, and the buffer never holds
    /// much more than the longest line kept.
    #[test]
    fn a_line_too_long_to_keep_comes_out_as_one_nul() {
        let long = vec![b'a'; 2 * LONGEST_LINE + 12_345];
        let mut input = b"first\n".to_vec();
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\nlast\n");
        input.extend_from_slice(&long);
        let mut reader = LineReader::new(&input[..], b'\n', true);
        let mut got = Vec::new();
        let mut most = 0;
        while let Some(line) = reader.read_line().unwrap() {
            got.push(line.to_vec());
            most = most.max(reader.buffer.len());
        }
        assert_eq!(got, [&b"first"[..], OVERLONG, b"last", OVERLONG]);
        assert!(most <= 2 * LONGEST_LINE, "{most}");
        // Just short of it, a line is kept whole.
        let kept = vec![b'b'; LONGEST_LINE - 1];
        let input = [&kept[..], b"\n"].concat();
        let mut reader = LineReader::new(&input[..], b'\n', false);
        assert_eq!(reader.read_line().unwrap(), Some(&kept[..]));
        assert_eq!(reader.read_line().unwrap(), None);
    }

    /// All the lines `data` gives before its end, read with `limit`, and whether a line too
    /// long ended them (after which nothing more is read).
    fn lines_within(data: &[u8], limit: usize, step: usize) -> (Vec<Vec<u8>>, bool) {
        let source = Trickle::new(data, step, false);
        let mut reader = LineReader::new(source, b'\n', false).ending_within(limit);
        let mut lines = Vec::new();
        loop {
            match reader.read_line() {
                Ok(Some(line)) => lines.push(line.to_vec()),
                Ok(None) => return (lines, false),
                Err(e) => {
                    assert!(LineTooLong::is(&e), "{e}");
                    assert_eq!(reader.read_line().unwrap(), None);
                    return (lines, true);
                }
            }
        }
    }

    /// With a limit, a line of `limit - 1` bytes and its terminator is read, one of `limit`
    /// bytes only when the input ends after it, and a longer one stops the reading, whether
    /// or not the buffer already holds its end.
    #[test]
    fn a_line_past_the_limit_stops_the_reading() {
        const LIMIT: usize = 100;
        let fits = vec![b'x'; LIMIT - 1];
        let full = vec![b'x'; LIMIT];
        for step in [1, 7, LIMIT, 1 << 20] {
            let lines = |data: &[u8]| lines_within(data, LIMIT, step);
            let then_next = [&fits[..], b"\nnext\n"].concat();
            assert_eq!(
                lines(&then_next),
                (vec![fits.clone(), b"next".to_vec()], false)
            );
            assert_eq!(lines(&[&full[..], b"\nnext\n"].concat()), (vec![], true));
            assert_eq!(lines(&full), (vec![full.clone()], false));
            let after_one = [b"first\n", &full[..], b"y\nnext\n"].concat();
            assert_eq!(lines(&after_one), (vec![b"first".to_vec()], true));
        }
        // A line past the limit is not handed out from the buffer either.
        let data = [&fits[..], b"\n", &full[..], b"\nnext\n"].concat();
        let mut reader = LineReader::new(&data[..], b'\n', false).ending_within(LIMIT);
        assert_eq!(reader.read_line().unwrap(), Some(&fits[..]));
        assert_eq!(reader.buffered_line(), None);
        assert!(reader.has_buffered_line());
        assert!(reader.read_line().is_err());
        // A line that never ends stops at the limit.
        let mut endless = LineReader::new(io::repeat(b'z'), b'\n', false).ending_within(LIMIT);
        assert!(endless.read_line().is_err_and(|e| LineTooLong::is(&e)));
        assert!(!LineTooLong::is(&io::Error::from_raw_os_error(libc::EIO)));
    }

    #[test]
    fn carriage_returns_stay_when_asked() {
        let mut reader =
            LineReader::new(&b"a\r\nb\r\r\nc\r"[..], b'\n', false).keeping_carriage_returns();
        let mut got = Vec::new();
        while let Some(line) = reader.read_line().unwrap() {
            got.push(line.to_vec());
        }
        assert_eq!(got, [&b"a\r"[..], b"b\r\r", b"c\r"]);
    }

    #[test]
    fn lines_longer_than_the_buffer_are_read_whole() {
        let long = vec![b'x'; CAPACITY * 3 + 5];
        let mut data = long.clone();
        data.extend_from_slice(b"\nshort\n");
        assert_eq!(
            lines(&data, b'\n', false, 1 << 20),
            [long, b"short".to_vec()]
        );
    }

    #[test]
    fn buffered_lines_never_read() {
        let source = Trickle::new(b"a\nb\nc", 4, false);
        let mut reader = LineReader::new(source, b'\n', false);
        assert!(!reader.has_buffered_line());
        assert_eq!(reader.read_line().unwrap(), Some(&b"a"[..]));
        assert_eq!(reader.buffered_line(), Some(&b"b"[..]));
        assert_eq!(reader.buffered_line(), None);
        assert!(!reader.has_buffered_line());
        assert_eq!(reader.read_line().unwrap(), Some(&b"c"[..]));
        assert_eq!(reader.read_line().unwrap(), None);
    }

    /// The rest is what the buffer holds past the last line, then the unread input, and no
    /// line comes after it.
    #[test]
    fn the_rest_follows_the_last_line_handed_out() {
        let source = Trickle::new(b"a\nb\nc\nd", 3, false);
        let mut reader = LineReader::new(source, b'\n', false);
        assert_eq!(reader.read_line().unwrap(), Some(&b"a"[..]));
        let mut rest = Vec::new();
        reader.rest().read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"b\nc\nd");
        assert_eq!(reader.read_line().unwrap(), None);
    }

    #[test]
    fn a_read_error_comes_after_the_lines_before_it() {
        let source = Trickle::new(b"a\nb", 100, true);
        let mut reader = LineReader::new(source, b'\n', false);
        assert_eq!(reader.read_line().unwrap(), Some(&b"a"[..]));
        assert_eq!(reader.read_line().unwrap(), Some(&b"b"[..]));
        assert!(reader.read_line().is_err());
        assert_eq!(reader.read_line().unwrap(), None);
    }
}
