//! Folders: a must-gather, a `kubectl cluster-info dump
//! --output-directory`, an unpacked support bundle, or files a person
//! dropped on the dashboard. The walk is behind the [`Folder`] trait so
//! that the reader needs no file system: [`DirFolder`] (feature `fs`)
//! walks a directory; the dashboard's worker lists the files it was
//! given.

use std::io::{self, Read};

use super::archive;
use super::collect::Collector;
use super::select::{Kind, classify};
use super::summary::Skip;

/// A set of files, each known by its path in the folder.
pub trait Folder {
    /// Every file, as its `/`-separated path in the folder and whether it
    /// is a symbolic link, in the order to read them.
    fn files(&mut self) -> io::Result<Vec<(String, bool)>>;

    /// Opens the file at `path` (one of [`files`](Folder::files)) for
    /// reading.
    fn open(&mut self, path: &str) -> io::Result<Box<dyn Read + '_>>;

    /// The bytes of the files that will be read (those that hold events,
    /// and archives: [`is_read`](super::select::is_read)), for progress;
    /// `None` when unknown.
    fn size(&self) -> Option<u64> {
        None
    }

    /// Whether its files were chosen one by one (files a person picked or
    /// dropped together): then each is read whatever its name, as a single
    /// file given directly is. A folder's files are chosen by their paths.
    fn chosen(&self) -> bool {
        false
    }
}

/// Reads every file of `folder` into `c`.
pub(crate) fn read(c: &mut Collector<'_>, folder: &mut dyn Folder) -> io::Result<()> {
    let chosen = folder.chosen();
    for (path, link) in folder.files()? {
        if link {
            c.skip(&path, Skip::Link);
            continue;
        }
        let kind = match classify(&path) {
            Kind::Skip(_) if chosen => Kind::Events,
            kind => kind,
        };
        match kind {
            Kind::Skip(why) => c.skip(&path, why),
            kind => {
                let reader = c.count(folder.open(&path)?);
                let prefix = match kind {
                    Kind::Archive => format!("{path}/"),
                    _ => String::new(),
                };
                archive::read_file(c, &path, &prefix, reader)?;
            }
        }
    }
    Ok(())
}

/// A directory of the file system, walked recursively, each directory's
/// entries by name.
#[cfg(feature = "fs")]
#[derive(Debug)]
pub struct DirFolder {
    root: std::path::PathBuf,
    files: Vec<(String, bool)>,
    size: u64,
}

#[cfg(feature = "fs")]
impl DirFolder {
    /// The files under `root`.
    pub fn new(root: &std::path::Path) -> io::Result<DirFolder> {
        let mut files = Vec::new();
        let mut size = 0;
        walk(root, "", &mut files, &mut size)?;
        Ok(DirFolder {
            root: root.to_owned(),
            files,
            size,
        })
    }
}

#[cfg(feature = "fs")]
fn walk(
    dir: &std::path::Path,
    prefix: &str,
    files: &mut Vec<(String, bool)>,
    size: &mut u64,
) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{prefix}{name}");
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            files.push((path, true));
        } else if kind.is_dir() {
            walk(&entry.path(), &format!("{path}/"), files, size)?;
        } else if kind.is_file() {
            if !matches!(classify(&path), Kind::Skip(_)) {
                *size += entry.metadata()?.len();
            }
            files.push((path, false));
        }
    }
    Ok(())
}

#[cfg(feature = "fs")]
impl Folder for DirFolder {
    fn files(&mut self) -> io::Result<Vec<(String, bool)>> {
        Ok(std::mem::take(&mut self.files))
    }

    fn open(&mut self, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let file = std::fs::File::open(self.root.join(path))?;
        Ok(Box::new(io::BufReader::with_capacity(256 * 1024, file)))
    }

    fn size(&self) -> Option<u64> {
        Some(self.size)
    }
}
