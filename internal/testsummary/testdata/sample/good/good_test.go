package good

import "testing"

func TestPasses(t *testing.T) { t.Log("quiet when it passes") }

func TestSkips(t *testing.T) { t.Skip("needs the moon") }

func TestSubtests(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) { t.Skipf("needs %d suns", 2) })
}
