//! Archives made in memory, for seeds and for the archive target.

use std::io::Write;

/// A tar of `files` (path, bytes).
pub fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        // A name tar cannot hold (empty, absolute, with `..`) is left out.
        let _ = builder.append_data(&mut header, path, *bytes);
    }
    builder.into_inner().expect("tar in memory")
}

/// `bytes` gzipped.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// `bytes` in xz.
pub fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut writer = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::default())
        .expect("xz in memory");
    writer.write_all(bytes).expect("xz in memory");
    writer.finish().expect("xz in memory")
}

/// A zip of `files` (path, bytes), deflated. A name already written is
/// left out: a zip cannot hold two entries of one name.
pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let mut written = std::collections::HashSet::new();
    for (path, bytes) in files {
        if !written.insert(*path) {
            continue;
        }
        writer
            .start_file(*path, zip::write::SimpleFileOptions::default())
            .expect("zip in memory");
        writer.write_all(bytes).expect("zip in memory");
    }
    writer.finish().expect("zip in memory").into_inner()
}
