package localpg_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/verdict-ml/verdict/store/localpg"
)

func ExampleCluster_URL() {
	c := localpg.New("/home/ann/.local/share/verdict")
	fmt.Println(c.URL())
	// Output:
	// postgres:///verdict?host=/home/ann/.local/share/verdict/run&port=5432&user=verdict
}

func ExampleCluster_Ensure() {
	c := localpg.New(localpg.DefaultHome())
	c.Notices = os.Stderr // "verdict: created a local PostgreSQL 16 cluster in ..." on first use
	url, err := c.Ensure(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(url) // hand it to pgxpool.New, then migrate
}
