//! SHA-384/512 of one message two blocks at a time, in one assembly function for CPUs with
//! AVX2, BMI1 and BMI2: the `avx2` kernel's path for every pair of whole blocks
//! (`sha512_avx2` hashes a last block alone with the rounds of `sha512_rounds`).
//!
//! For each pair, the message schedule of both blocks is computed on YMM registers (one block
//! per 128-bit lane, as in `sha512_avx2`) between the scalar rounds of the first block, one
//! step (two words of each block) every two rounds, sixteen rounds ahead of the round that
//! reads it; the second block's rounds read the schedule the first left on the stack. The
//! rounds are `sha512_rounds`' form with fewer operations, with Ch's two halves added to `h`
//! before Σ1, which is ready last: the new `e` is five operations after the old one.
//!
//! Why assembly: the same rounds and schedule written with intrinsics and `asm!` rounds
//! (`sha512_rounds`) left the compiler room to spill the schedule's window and branch on
//! where each step goes. Here the window stays in eight YMM registers and every instruction
//! has its place. The loops run sixteen rounds at a time, so the code stays about 4 KiB.
//! Measured on AMD Zen 3 (EPYC, one process, in turn with OpenSSL 3.0.19's `SHA512_Update`,
//! 1 MiB, medians of 15 paired rounds): 0.94x OpenSSL, against 0.81x for the intrinsics
//! kernel in the same session; `bench/results/amd-epyc-zen3.md` has the runs.
//!
//! The sha2 crate is the reference the tests hold this to (`sha512_avx2`'s tests hash every
//! length to 4161 bytes and 33 MiB through it).

use super::sha2_portable::sha512::K;

/// W + K for a pair of blocks is made from this: words `2j` and `2j + 1` of K, twice (one copy
/// per 128-bit lane), at byte `32 * j`.
#[repr(C, align(64))]
struct DoubledK([u64; 160]);

static DOUBLED_K: DoubledK = {
    let mut words = [0u64; 160];
    let mut j = 0;
    while j < 40 {
        words[4 * j] = K[2 * j];
        words[4 * j + 1] = K[2 * j + 1];
        words[4 * j + 2] = K[2 * j];
        words[4 * j + 3] = K[2 * j + 1];
        j += 1;
    }
    DoubledK(words)
};

/// Two byte shuffles: each 64-bit word's bytes reversed (SHA-512 words are big-endian), and a
/// rotate of each word right by 8 bits (part of σ0).
#[repr(C, align(32))]
struct Shuffles([u8; 64]);

static SHUFFLES: Shuffles = Shuffles([
    7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, //
    7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, //
    1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, //
    1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8,
]);

/// Hashes `pairs` pairs of 128-byte blocks from `blocks` into `state`.
///
/// Registers: the eight variables in rax, rbx, rcx, rdx, r8 to r11 (renamed from round to
/// round by the macros' arguments, never moved); r12 a temporary; r14 and r15 Maj's `b ^ c`,
/// carried from one round to the next; r13 the offset of the sixteen rounds in hand; rbp the
/// doubled K; rsi the blocks, rdi the state. ymm0 to ymm7 the schedule's last sixteen words of
/// each block, by pairs; ymm8 to ymm13 temporaries; ymm14 and ymm15 the shuffles. The stack
/// holds W + K of both blocks (1280 bytes, word pairs interleaved as the registers make them:
/// the first block's words `2j` and `2j + 1` at byte `32 * j`, the second's 16 bytes after),
/// the end of the blocks and the caller's stack pointer.
///
/// # Safety
///
/// The CPU has AVX2, BMI1 and BMI2; `state` points to eight words and `blocks` to
/// `256 * pairs` readable bytes, `pairs` at least one.
#[unsafe(naked)]
pub(super) unsafe extern "sysv64" fn pairs_in_assembly(
    state: *mut u64,
    blocks: *const u8,
    pairs: usize,
) {
    core::arch::naked_asm!(
        // The half of a round that makes T1 (in h) and the new e (in d).
        ".macro sha512_pairs_round_e a, b, c, d, e, f, g, h, p, q, off",
        "add \\h, qword ptr [rsp + r13 + \\off]",
        "andn r12, \\e, \\g",
        "add \\h, r12",
        "mov r12, \\e",
        "and r12, \\f",
        "add \\h, r12",
        "rorx r12, \\e, 14",
        "rorx \\q, \\e, 18",
        "xor r12, \\q",
        "rorx \\q, \\e, 41",
        "xor r12, \\q",
        "add \\h, r12",
        "add \\d, \\h",
        ".endm",
        // The half that adds Maj and Σ0 to T1 for the new a (in h): Maj is
        // ((a ^ b) & (b ^ c)) ^ b with b ^ c in p; a ^ b goes to q for the next round.
        ".macro sha512_pairs_round_a a, b, c, d, e, f, g, h, p, q, off",
        "mov \\q, \\a",
        "xor \\q, \\b",
        "and \\p, \\q",
        "xor \\p, \\b",
        "rorx r12, \\a, 28",
        "add \\h, \\p",
        "rorx \\p, \\a, 34",
        "xor r12, \\p",
        "rorx \\p, \\a, 39",
        "xor r12, \\p",
        "add \\h, r12",
        ".endm",
        ".macro sha512_pairs_round a, b, c, d, e, f, g, h, p, q, off",
        "sha512_pairs_round_e \\a, \\b, \\c, \\d, \\e, \\f, \\g, \\h, \\p, \\q, \\off",
        "sha512_pairs_round_a \\a, \\b, \\c, \\d, \\e, \\f, \\g, \\h, \\p, \\q, \\off",
        ".endm",
        // A step's first half: x0 (words t - 16 and t - 15) += W[t-7, t-6] + σ0(W[t-15, t-14]),
        // σ0(x) = ror 1 ^ ror 8 ^ shr 7.
        ".macro sha512_pairs_step_a x0, x1, x4, x5",
        "vpalignr ymm8, \\x1, \\x0, 8",
        "vpalignr ymm9, \\x5, \\x4, 8",
        "vpsrlq ymm10, ymm8, 1",
        "vpsllq ymm11, ymm8, 63",
        "vpxor ymm10, ymm10, ymm11",
        "vpshufb ymm11, ymm8, ymm14",
        "vpxor ymm10, ymm10, ymm11",
        "vpsrlq ymm11, ymm8, 7",
        "vpxor ymm10, ymm10, ymm11",
        "vpaddq \\x0, \\x0, ymm9",
        "vpaddq \\x0, \\x0, ymm10",
        ".endm",
        // Its second half: x0 += σ1(W[t-2, t-1]) (x7), σ1(x) = ror 19 ^ ror 61 ^ shr 6, now
        // words t and t + 1; stores them plus K as pair j.
        ".macro sha512_pairs_step_b x0, x7, j",
        "vpsrlq ymm12, \\x7, 19",
        "vpsllq ymm13, \\x7, 45",
        "vpxor ymm12, ymm12, ymm13",
        "vpsrlq ymm13, \\x7, 61",
        "vpxor ymm12, ymm12, ymm13",
        "vpsllq ymm13, \\x7, 3",
        "vpxor ymm12, ymm12, ymm13",
        "vpsrlq ymm13, \\x7, 6",
        "vpxor ymm12, ymm12, ymm13",
        "vpaddq \\x0, \\x0, ymm12",
        "vpaddq ymm13, \\x0, ymmword ptr [rbp + r13 + 32 * \\j]",
        "vmovdqa ymmword ptr [rsp + r13 + 32 * \\j], ymm13",
        ".endm",
        // Rounds t and t + 1 (t even, counted from r13's sixteen) of the first block, with step
        // t / 2 + 8 into window register x0.
        ".macro sha512_pairs_two_with_step a, b, c, d, e, f, g, h, t, x0, x1, x4, x5, x7",
        "sha512_pairs_round_e \\a, \\b, \\c, \\d, \\e, \\f, \\g, \\h, r14, r15, 16 * (\\t)",
        "sha512_pairs_step_a \\x0, \\x1, \\x4, \\x5",
        "sha512_pairs_round_a \\a, \\b, \\c, \\d, \\e, \\f, \\g, \\h, r14, r15, 16 * (\\t)",
        "sha512_pairs_round_e \\h, \\a, \\b, \\c, \\d, \\e, \\f, \\g, r15, r14, 16 * (\\t) + 8",
        "sha512_pairs_step_b \\x0, \\x7, ((\\t) / 2 + 8)",
        "sha512_pairs_round_a \\h, \\a, \\b, \\c, \\d, \\e, \\f, \\g, r15, r14, 16 * (\\t) + 8",
        ".endm",
        // Sixteen rounds of the first block with eight steps: the variables' names come back
        // every eight rounds and the window's every eight steps, so the loop body is one.
        ".macro sha512_pairs_sixteen_with_steps",
        "sha512_pairs_two_with_step rax, rbx, rcx, rdx, r8, r9, r10, r11, 0, ymm0, ymm1, ymm4, ymm5, ymm7",
        "sha512_pairs_two_with_step r10, r11, rax, rbx, rcx, rdx, r8, r9, 2, ymm1, ymm2, ymm5, ymm6, ymm0",
        "sha512_pairs_two_with_step r8, r9, r10, r11, rax, rbx, rcx, rdx, 4, ymm2, ymm3, ymm6, ymm7, ymm1",
        "sha512_pairs_two_with_step rcx, rdx, r8, r9, r10, r11, rax, rbx, 6, ymm3, ymm4, ymm7, ymm0, ymm2",
        "sha512_pairs_two_with_step rax, rbx, rcx, rdx, r8, r9, r10, r11, 8, ymm4, ymm5, ymm0, ymm1, ymm3",
        "sha512_pairs_two_with_step r10, r11, rax, rbx, rcx, rdx, r8, r9, 10, ymm5, ymm6, ymm1, ymm2, ymm4",
        "sha512_pairs_two_with_step r8, r9, r10, r11, rax, rbx, rcx, rdx, 12, ymm6, ymm7, ymm2, ymm3, ymm5",
        "sha512_pairs_two_with_step rcx, rdx, r8, r9, r10, r11, rax, rbx, 14, ymm7, ymm0, ymm3, ymm4, ymm6",
        ".endm",
        // Eight rounds from round t of r13's sixteen, of the block at `lane` (0 or 16).
        ".macro sha512_pairs_eight t, lane",
        "sha512_pairs_round rax, rbx, rcx, rdx, r8, r9, r10, r11, r14, r15, 16 * (\\t) + \\lane",
        "sha512_pairs_round r11, rax, rbx, rcx, rdx, r8, r9, r10, r15, r14, 16 * (\\t) + 8 + \\lane",
        "sha512_pairs_round r10, r11, rax, rbx, rcx, rdx, r8, r9, r14, r15, 16 * (\\t) + 32 + \\lane",
        "sha512_pairs_round r9, r10, r11, rax, rbx, rcx, rdx, r8, r15, r14, 16 * (\\t) + 40 + \\lane",
        "sha512_pairs_round r8, r9, r10, r11, rax, rbx, rcx, rdx, r14, r15, 16 * (\\t) + 64 + \\lane",
        "sha512_pairs_round rdx, r8, r9, r10, r11, rax, rbx, rcx, r15, r14, 16 * (\\t) + 72 + \\lane",
        "sha512_pairs_round rcx, rdx, r8, r9, r10, r11, rax, rbx, r14, r15, 16 * (\\t) + 96 + \\lane",
        "sha512_pairs_round rbx, rcx, rdx, r8, r9, r10, r11, rax, r15, r14, 16 * (\\t) + 104 + \\lane",
        ".endm",
        // The state plus the variables, into the state and the variables.
        ".macro sha512_pairs_add_state",
        "add rax, qword ptr [rdi]",
        "mov qword ptr [rdi], rax",
        "add rbx, qword ptr [rdi + 8]",
        "mov qword ptr [rdi + 8], rbx",
        "add rcx, qword ptr [rdi + 16]",
        "mov qword ptr [rdi + 16], rcx",
        "add rdx, qword ptr [rdi + 24]",
        "mov qword ptr [rdi + 24], rdx",
        "add r8, qword ptr [rdi + 32]",
        "mov qword ptr [rdi + 32], r8",
        "add r9, qword ptr [rdi + 40]",
        "mov qword ptr [rdi + 40], r9",
        "add r10, qword ptr [rdi + 48]",
        "mov qword ptr [rdi + 48], r10",
        "add r11, qword ptr [rdi + 56]",
        "mov qword ptr [rdi + 56], r11",
        ".endm",
        // Words 2i and 2i + 1 of both blocks into x, and with K onto the stack.
        ".macro sha512_pairs_load i, x",
        "vmovdqu xmm8, xmmword ptr [rsi + 16 * \\i]",
        "vinserti128 \\x, ymm8, xmmword ptr [rsi + 128 + 16 * \\i], 1",
        "vpshufb \\x, \\x, ymm15",
        "vpaddq ymm9, \\x, ymmword ptr [rbp + 32 * \\i]",
        "vmovdqa ymmword ptr [rsp + 32 * \\i], ymm9",
        ".endm",
        "push rbp",
        "push rbx",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        // A frame aligned to 64 bytes: W + K at 0, the end of the blocks at 1280, the
        // caller's stack pointer at 1288.
        "mov rax, rsp",
        "sub rsp, 1408",
        "and rsp, -64",
        "mov qword ptr [rsp + 1288], rax",
        "shl rdx, 8",
        "add rdx, rsi",
        "mov qword ptr [rsp + 1280], rdx",
        "lea rbp, [rip + {doubled_k}]",
        "vmovdqa ymm15, ymmword ptr [rip + {shuffles}]",
        "vmovdqa ymm14, ymmword ptr [rip + {shuffles} + 32]",
        "mov rax, qword ptr [rdi]",
        "mov rbx, qword ptr [rdi + 8]",
        "mov rcx, qword ptr [rdi + 16]",
        "mov rdx, qword ptr [rdi + 24]",
        "mov r8, qword ptr [rdi + 32]",
        "mov r9, qword ptr [rdi + 40]",
        "mov r10, qword ptr [rdi + 48]",
        "mov r11, qword ptr [rdi + 56]",
        "2:",
        "sha512_pairs_load 0, ymm0",
        "sha512_pairs_load 1, ymm1",
        "sha512_pairs_load 2, ymm2",
        "sha512_pairs_load 3, ymm3",
        "sha512_pairs_load 4, ymm4",
        "sha512_pairs_load 5, ymm5",
        "sha512_pairs_load 6, ymm6",
        "sha512_pairs_load 7, ymm7",
        // The first block: rounds 0 to 63 with the schedule, 64 to 79 without.
        "mov r14, rbx",
        "xor r14, rcx",
        "xor r13d, r13d",
        "3:",
        "sha512_pairs_sixteen_with_steps",
        "add r13, 256",
        "cmp r13, 1024",
        "jb 3b",
        "sha512_pairs_eight 0, 0",
        "sha512_pairs_eight 8, 0",
        "sha512_pairs_add_state",
        // The second block, from the schedule on the stack.
        "mov r14, rbx",
        "xor r14, rcx",
        "xor r13d, r13d",
        "4:",
        "sha512_pairs_eight 0, 16",
        "sha512_pairs_eight 8, 16",
        "add r13, 256",
        "cmp r13, 1280",
        "jb 4b",
        "sha512_pairs_add_state",
        "add rsi, 256",
        "cmp rsi, qword ptr [rsp + 1280]",
        "jb 2b",
        "vzeroupper",
        "mov rsp, qword ptr [rsp + 1288]",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        "ret",
        // The macros are the assembler's, for the whole object file: give the names back.
        ".purgem sha512_pairs_round_e",
        ".purgem sha512_pairs_round_a",
        ".purgem sha512_pairs_round",
        ".purgem sha512_pairs_step_a",
        ".purgem sha512_pairs_step_b",
        ".purgem sha512_pairs_two_with_step",
        ".purgem sha512_pairs_sixteen_with_steps",
        ".purgem sha512_pairs_eight",
        ".purgem sha512_pairs_add_state",
        ".purgem sha512_pairs_load",
        doubled_k = sym DOUBLED_K,
        shuffles = sym SHUFFLES,
    );
}
