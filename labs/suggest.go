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

// editDistance is the Levenshtein distance of two strings, by rune; long
// strings are never close.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 99
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
