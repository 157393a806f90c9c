// Package labs is the runner for MiniKafka Lab's teaching material: scripted
// labs (.lab files replayed and checked block by block), checked exercises
// (.exercise files with setup commands, checks, hints and a reference
// solution beside them) and the executable transcripts of the chapters
// (```mk blocks in chapters/NN-slug.md).
//
// The runner knows nothing about the engine or the command language. It
// drives an Executor, one fresh executor per lab, exercise attempt or
// chapter; in the program that executor is a *repl.Session. An executor that
// also implements Validator lets the runner reject unknown commands and
// malformed checks with FILE:LINE errors before anything runs.
//
// Material is read from an fs.FS whose root holds labs/ and chapters/ (the
// embedded content of the binary, or os.DirFS for authors' own material).
// The formats are documented for authors and teachers in docs/labs.md.
//
// Content tests call the exported helpers RunAll, VerifyExercises and
// CheckChapters; the functions they are built on (CheckLab, VerifyExercise,
// CheckChapter) return errors and can be used anywhere.
package labs
