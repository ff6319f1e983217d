// OpenSSL's libcrypto, the peer measured in the same process (Debian: libssl-dev).
fn main() {
    println!("cargo:rustc-link-lib=crypto");
}
