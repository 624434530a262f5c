//! A small file browser for opening any scene file from disk: a window listing one
//! directory's sub-directories and `.json` files (hidden entries left out), with a button
//! to the parent directory. A click on a directory enters it, a click on a file opens it.
//! It starts in the repository's `scenes/` folder. (Besides the path field and the
//! command-line argument; egui has no file dialog of its own, and a native one would need
//! a desktop portal that Xvfb and CI do not have.)

use std::path::{Path, PathBuf};

/// One listed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// File or directory name.
    pub name: String,
    /// Full path.
    pub path: PathBuf,
    /// A directory (entered on click) or a `.json` file (opened).
    pub is_dir: bool,
}

/// The browser's state.
#[derive(Clone, Debug)]
pub struct Browser {
    /// Shown.
    pub open: bool,
    /// The directory listed.
    pub dir: PathBuf,
    /// Its sub-directories, then its `.json` files, each sorted by name.
    pub entries: Vec<Entry>,
    /// Why the directory could not be listed.
    pub error: Option<String>,
}

impl Browser {
    /// A closed browser on `dir`.
    #[must_use]
    pub fn new(dir: &Path) -> Self {
        let mut b = Self { open: false, dir: PathBuf::new(), entries: Vec::new(), error: None };
        b.set_dir(dir);
        b
    }

    /// Lists `dir` (made absolute when it can be).
    pub fn set_dir(&mut self, dir: &Path) {
        self.dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.entries.clear();
        self.error = None;
        match std::fs::read_dir(&self.dir) {
            Ok(read) => {
                for entry in read.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') {
                        continue;
                    }
                    let path = entry.path();
                    let is_dir = path.is_dir();
                    let json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
                    if is_dir || (json && path.is_file()) {
                        self.entries.push(Entry { name, path, is_dir });
                    }
                }
                self.entries.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.cmp(&b.name)));
            }
            Err(e) => self.error = Some(format!("cannot list {}: {e}", self.dir.display())),
        }
    }

    /// Shows the window when open; returns the file the user picked (the window closes).
    pub fn show(&mut self, ctx: &egui::Context) -> Option<PathBuf> {
        if !self.open {
            return None;
        }
        let mut picked = None;
        let mut enter = None;
        let mut open = self.open;
        egui::Window::new("Open a scene file")
            .open(&mut open)
            .collapsible(false)
            .default_pos([340.0, 60.0])
            .default_width(360.0)
            .show(ctx, |ui| {
                ui.label(self.dir.display().to_string());
                if let Some(parent) = self.dir.parent()
                    && ui.button(".. (parent directory)").clicked()
                {
                    enter = Some(parent.to_path_buf());
                }
                if let Some(e) = &self.error {
                    ui.colored_label(egui::Color32::from_rgb(0xc0, 0x30, 0x30), e);
                }
                ui.separator();
                egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                    for entry in &self.entries {
                        let label = if entry.is_dir { format!("{}/", entry.name) } else { entry.name.clone() };
                        if ui.selectable_label(false, label).clicked() {
                            if entry.is_dir {
                                enter = Some(entry.path.clone());
                            } else {
                                picked = Some(entry.path.clone());
                            }
                        }
                    }
                    if self.entries.is_empty() && self.error.is_none() {
                        ui.weak("(no directories or .json files here)");
                    }
                });
            });
        self.open = open && picked.is_none();
        if let Some(dir) = enter {
            self.set_dir(&dir);
        }
        picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_directories_then_json_files_and_skips_the_rest() {
        let dir = std::env::temp_dir().join(format!("sinew-browser-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir_all(dir.join(".hidden")).unwrap();
        for f in ["b.json", "a.JSON", "notes.txt", ".c.json"] {
            std::fs::write(dir.join(f), "{}").unwrap();
        }
        let b = Browser::new(&dir);
        let names: Vec<&str> = b.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["sub", "a.JSON", "b.json"]);
        assert!(b.entries[0].is_dir && !b.entries[1].is_dir);
        let missing = Browser::new(&dir.join("missing"));
        assert!(missing.error.as_deref().unwrap_or("").contains("cannot list"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
