package labs

import "fmt"

// Closest returns the candidate nearest to s by edit distance when it is
// near enough to be a likely typo (at most 2 edits, 1 for words of up to
// 5 characters, such as lab IDs), else "". Ties go to the first candidate.
func Closest(s string, candidates []string) string {
	best, bestD := "", 3
	if len([]rune(s)) <= 5 {
		bestD = 2
	}
	for _, c := range candidates {
		if c == s {
			continue
		}
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean is " (did you mean X?)" when a candidate is close to s.
func didYouMean(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

// editDistance is the optimal-string-alignment distance of two strings,
// by rune: insertions, deletions, substitutions, and swaps of two
// neighbours ("lba" is one edit from "lab"). Long strings are never close.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 99
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
