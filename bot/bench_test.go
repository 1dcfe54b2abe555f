package bot

import (
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// BenchmarkDeliveries drives signed deliveries at the bot on loopback,
// beside a bare net/http handler that only verifies the signature, in the
// same run: the throughput of 8 concurrent senders, and the latency of each
// acknowledgement at a steady 200 deliveries a second. bench/bot.sh prints
// the figures. Targets: within 1.5x of the bare handler; p99 under 50 ms.
func BenchmarkDeliveries(b *testing.B) {
	f := newFixture(b, func(c *Config) { c.Queue = 10000; c.Workers = 4 }, nil)
	n := f.addIssue(b)
	body := commentPayload(b, "alice", "User", n, 1, "Looks good to me.", false)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := github.ValidatePayload(r, []byte(testSecret)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer bare.Close()
	targets := []struct{ name, url string }{{"bare", bare.URL}, {"bot", f.http.URL}}
	results := map[string]*stats{}
	for _, tg := range targets {
		results[tg.name] = &stats{}
	}
	for b.Loop() {
		for _, tg := range targets {
			s := results[tg.name]
			s.perSecond += throughput(b, tg.url, body, 400, 8)
			p50, p99 := paced(b, tg.url, body, 200, 200)
			s.p50 += p50
			s.p99 += p99
			s.runs++
		}
	}
	for _, tg := range targets {
		s := results[tg.name]
		runs := float64(s.runs)
		b.ReportMetric(s.perSecond/runs, tg.name+"-deliveries/s")
		b.ReportMetric(float64(s.p50.Microseconds())/runs/1000, tg.name+"-p50-ms")
		b.ReportMetric(float64(s.p99.Microseconds())/runs/1000, tg.name+"-p99-ms")
	}
	b.ReportMetric(results["bare"].perSecond/results["bot"].perSecond, "bare/bot-throughput")
}

type stats struct {
	perSecond float64
	p50, p99  time.Duration
	runs      int
}

// throughput sends count deliveries from workers senders at once and
// returns deliveries per second.
func throughput(b *testing.B, url string, body []byte, count, workers int) float64 {
	var wg sync.WaitGroup
	next := make(chan int, count)
	for i := range count {
		next <- i
	}
	close(next)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if code := deliverTo(b, url, testSecret, "issue_comment", "t-"+itoa(int64(i))+"-"+itoa(time.Now().UnixNano()), body); code >= 300 {
					b.Errorf("delivery answered %d", code)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(count) / time.Since(start).Seconds()
}

// paced sends count deliveries at rate a second and returns the p50 and
// p99 acknowledgement latency.
func paced(b *testing.B, url string, body []byte, count, rate int) (time.Duration, time.Duration) {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	lat := make([]time.Duration, count)
	var wg sync.WaitGroup
	for i := range count {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			if code := deliverTo(b, url, testSecret, "issue_comment", "p-"+itoa(int64(i))+"-"+itoa(start.UnixNano()), body); code >= 300 {
				b.Errorf("delivery answered %d", code)
			}
			lat[i] = time.Since(start)
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat[count/2], lat[count*99/100]
}
