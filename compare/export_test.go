package compare

import "github.com/verdict-ml/verdict/stats"

// Poke changes the rows c keeps of evaluation id, for tests that tell a
// row taken from c from one computed anew.
func (c *RowCache) Poke(id int64, f func(*LeaderboardRow)) (poked int) {
	for _, k := range c.rows.Keys() {
		if k.eval != id {
			continue
		}
		row, _ := c.rows.Peek(k)
		f(&row)
		c.rows.Add(k, row)
		poked++
	}
	return poked
}

// PokeMean changes the means c keeps of evaluation id.
func (c *RowCache) PokeMean(id int64, f func(*stats.Interval)) (poked int) {
	for _, k := range c.means.Keys() {
		if k.eval != id {
			continue
		}
		m, _ := c.means.Peek(k)
		f(&m)
		c.means.Add(k, m)
		poked++
	}
	return poked
}
