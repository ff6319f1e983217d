//! `fasthash --bench`'s table: the lines above it, the column heads, and a row an engine.
//! `crate::bench` measures and hands the values; every byte of the table is written here.

use std::io::{self, Write};

/// The table's shape: the buffer sizes measured, the side-by-side column, the kernel column's
/// width.
pub(crate) struct Table<'a> {
    /// One column a size, in bytes.
    sizes: &'a [usize],
    /// The last column: this many buffers of `many_size` bytes in one call.
    many: usize,
    many_size: usize,
    /// Samples each figure is the median of.
    samples: usize,
    kernel_width: usize,
}

impl<'a> Table<'a> {
    /// A table whose kernel column fits every label in `kernels`.
    pub(crate) fn new<'k>(
        sizes: &'a [usize],
        (many, many_size): (usize, usize),
        samples: usize,
        kernels: impl IntoIterator<Item = &'k str>,
    ) -> Table<'a> {
        let kernel_width = kernels.into_iter().map(str::len).max().unwrap_or(0).max(6);
        Table {
            sizes,
            many,
            many_size,
            samples,
            kernel_width,
        }
    }

    /// The lines above the table (version, CPU, what the figures are) and the column heads.
    pub(crate) fn write_head(
        &self,
        out: &mut impl Write,
        cpu_model: &str,
        cpu_features: &[&str],
    ) -> io::Result<()> {
        let many = self.many_label();
        writeln!(out, "fasthash {} on {cpu_model}", env!("CARGO_PKG_VERSION"))?;
        writeln!(out, "CPU features: {}", cpu_features.join(" "))?;
        writeln!(
            out,
            "One thread, in-memory buffers, median of {} samples, GB/s (10^9 bytes/s); \
             {many}: {} buffers in one call",
            self.samples, self.many
        )?;
        writeln!(out, "* the engine fasthash uses here")?;
        writeln!(out)?;
        let width = self.kernel_width;
        write!(out, "{:<10}   {:<width$}", "algorithm", "kernel")?;
        for &size in self.sizes {
            write!(out, " {:>8}", size_label(size))?;
        }
        writeln!(out, " {many:>8}")?;
        out.flush()
    }

    /// One engine's row: its algorithm, `*` when fasthash uses it here, its kernel, and GB/s
    /// for each size and then side by side.
    pub(crate) fn write_row(
        &self,
        out: &mut impl Write,
        algorithm: &str,
        used: bool,
        kernel: &str,
        gigabytes_per_second: &[f64],
    ) -> io::Result<()> {
        let used = if used { "*" } else { " " };
        let width = self.kernel_width;
        write!(out, "{algorithm:<10} {used} {kernel:<width$}")?;
        for rate in gigabytes_per_second {
            // Slow kernels (a forced portable one, a debug build) would print 0.00 otherwise.
            let decimals = if *rate >= 0.1 { 2 } else { 4 };
            write!(out, " {rate:>8.decimals$}")?;
        }
        writeln!(out)?;
        out.flush()
    }

    /// The warning under the table when another engine measured faster than the one in use:
    /// a bad choice for this CPU, to be seen at once (and reported by `bench/peers.sh`).
    pub(crate) fn write_slower(&self, out: &mut impl Write, slower: &Slower) -> io::Result<()> {
        let at: Vec<String> = slower
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} {:.2} against {:.2} GB/s",
                    c.column_label, c.used, c.faster
                )
            })
            .collect();
        writeln!(
            out,
            "warning: {} uses {}, more than {:.0}% slower here than {} ({}); \
             FASTHASH_KERNEL={}={} runs the other",
            slower.algorithm,
            slower.used,
            (slower.tolerance - 1.0) * 100.0,
            slower.faster,
            at.join(", "),
            slower.algorithm,
            slower.faster,
        )?;
        out.flush()
    }

    fn many_label(&self) -> String {
        format!("{}x{}", self.many, size_label(self.many_size))
    }
}

/// The engine in use is slower than another this CPU runs (`--bench`'s warning line).
pub(crate) struct Slower {
    /// How much faster the other measured at least, to be named here (1.10: 10%).
    pub(crate) tolerance: f64,
    pub(crate) algorithm: &'static str,
    pub(crate) used: String,
    pub(crate) faster: String,
    pub(crate) columns: Vec<SlowerAt>,
}

/// One column where it is: the column's head, and the two figures in GB/s.
pub(crate) struct SlowerAt {
    pub(crate) column_label: String,
    pub(crate) used: f64,
    pub(crate) faster: f64,
}

/// A buffer size as the column heads say it: `64 B`, `4 KiB`, `1 MiB`.
pub(crate) fn size_label(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

/// xxhsum's benchmark: its first line, the version (`-q` leaves it out).
pub(crate) fn xxhsum_bench_header(exe_name: &str) -> String {
    format!(
        "{exe_name} 0.8.3 (fasthash {}), xxHash's benchmark \n",
        env!("CARGO_PKG_VERSION")
    )
}

/// xxhsum's benchmark: the generated sample's size, in KB from 10 KB up (`Sample of 100
/// KB...`).
pub(crate) fn xxhsum_sample_line(size: usize) -> String {
    match size >= 10 * 1024 {
        true => format!("Sample of {} KB...        \n", size >> 10),
        false => format!("Sample of {size} bytes...        \n"),
    }
}

/// xxhsum's benchmark: one variant's line, its number, name (cut at 29 characters, as
/// xxhsum's column is), the sample's size and the hashes a second, in MB of 2^20 bytes.
pub(crate) fn xxhsum_bench_line(number: usize, name: &str, size: usize, per_second: f64) -> String {
    let megabytes = size as f64 * per_second / (1024.0 * 1024.0);
    format!(
        "{number:2}#{name:<29.29} : {size:10} -> {per_second:8.0} it/s ({megabytes:7.1} MB/s) \n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xxhsum's column: the name cut at 29 characters, the rate in MB of 2^20 bytes.
    #[test]
    fn xxhsum_benchmark_lines_have_its_columns() {
        assert_eq!(
            xxhsum_bench_line(1, "XXH32", 102_400, 75_680.0),
            " 1#XXH32                         :     102400 ->    75680 it/s ( 7390.6 MB/s) \n"
        );
        let long = xxhsum_bench_line(28, "XXH128_stream w/seed unaligned", 1024, 1.0);
        assert!(
            long.starts_with("28#XXH128_stream w/seed unaligne :"),
            "{long}"
        );
        assert_eq!(xxhsum_sample_line(102_400), "Sample of 100 KB...        \n");
        assert_eq!(
            xxhsum_sample_line(1024),
            "Sample of 1024 bytes...        \n"
        );
    }

    #[test]
    fn head_and_row_line_up() {
        let table = Table::new(&[64, 4096, 1 << 20], (32, 4096), 5, ["portable", "sha-ext"]);
        let mut out = Vec::new();
        table
            .write_head(&mut out, "Some CPU", &["sse2", "avx2"])
            .unwrap();
        table
            .write_row(&mut out, "sha256", true, "sha-ext", &[1.5, 2.25, 2.5, 0.05])
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "CPU features: sse2 avx2");
        assert!(lines[2].contains("median of 5 samples"), "{text}");
        assert!(
            lines[2].ends_with("32x4 KiB: 32 buffers in one call"),
            "{text}"
        );
        assert_eq!(
            lines[5],
            "algorithm    kernel       64 B    4 KiB    1 MiB 32x4 KiB"
        );
        assert_eq!(
            lines[6],
            "sha256     * sha-ext      1.50     2.25     2.50   0.0500"
        );
        assert_eq!(lines[5].len(), lines[6].len());
    }

    #[test]
    fn the_warning_names_both_engines_and_each_column_it_loses() {
        let table = Table::new(&[64, 4096, 1 << 20], (32, 4096), 5, ["portable"]);
        let slower = Slower {
            tolerance: 1.1,
            algorithm: "sha512",
            used: "ring-asm".into(),
            faster: "avx2".into(),
            columns: vec![
                SlowerAt {
                    column_label: "4 KiB".into(),
                    used: 0.5,
                    faster: 0.66,
                },
                SlowerAt {
                    column_label: "1 MiB".into(),
                    used: 0.52,
                    faster: 0.691,
                },
            ],
        };
        let mut out = Vec::new();
        table.write_slower(&mut out, &slower).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "warning: sha512 uses ring-asm, more than 10% slower here than avx2 (4 KiB 0.50 \
             against 0.66 GB/s, 1 MiB 0.52 against 0.69 GB/s); FASTHASH_KERNEL=sha512=avx2 runs \
             the other\n"
        );
    }
}
