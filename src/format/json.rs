//! How every JSON object fasthash prints is put on its line, and how a name goes in it.

use serde_json::{Map, Value};
use std::io::{self, Write};

/// One object on one line.
pub(crate) fn write_object(out: &mut impl Write, object: Map<String, Value>) -> io::Result<()> {
    let mut line = serde_json::to_vec(&Value::Object(object))?;
    line.push(b'\n');
    out.write_all(&line)
}

/// An object of the given `type`, the key every object of a check, an audit or `--verify-s3`
/// has.
pub(crate) fn typed(kind: &str) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("type".into(), kind.into());
    object
}

/// A name in JSON: as text, and exactly in `KEY_base64` when it is not UTF-8 (the text then
/// has U+FFFD where the bytes were not UTF-8, for people; `KEY_base64` is the name).
pub(crate) fn insert_name(object: &mut Map<String, Value>, key: &str, name: &[u8]) {
    use base64::Engine as _;
    object.insert(
        key.into(),
        String::from_utf8_lossy(name).into_owned().into(),
    );
    if std::str::from_utf8(name).is_err() {
        object.insert(
            format!("{key}_base64"),
            base64::engine::general_purpose::STANDARD
                .encode(name)
                .into(),
        );
    }
}
