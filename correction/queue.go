package correction

import "sync"

// queue runs a session's file work one job at a time, in the order the
// jobs were added (on the UI goroutine), on a goroutine of its own that
// lives while there is work. The Job add returns waits for its result; the
// work runs whether or not anyone waits.
type queue struct {
	mu      sync.Mutex
	idle    *sync.Cond
	tasks   []*task
	running bool
	n       int // added and not finished
}

type task struct {
	fn   func() Result
	done chan struct{}
	res  Result
}

func (q *queue) init() { q.idle = sync.NewCond(&q.mu) }

// add queues fn and returns a Job that waits for its result.
func (q *queue) add(fn func() Result) Job {
	t := &task{fn: fn, done: make(chan struct{})}
	q.mu.Lock()
	q.tasks = append(q.tasks, t)
	q.n++
	if !q.running {
		q.running = true
		go q.work()
	}
	q.mu.Unlock()
	return func() Result {
		<-t.done
		return t.res
	}
}

func (q *queue) work() {
	for {
		q.mu.Lock()
		if len(q.tasks) == 0 {
			q.running = false
			q.idle.Broadcast()
			q.mu.Unlock()
			return
		}
		t := q.tasks[0]
		q.tasks = q.tasks[1:]
		q.mu.Unlock()
		t.res = t.fn()
		q.mu.Lock()
		q.n--
		q.mu.Unlock()
		close(t.done)
	}
}

// pending is how many jobs were added and have not finished.
func (q *queue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// close waits until every job added so far has run.
func (q *queue) close() {
	q.mu.Lock()
	for q.running {
		q.idle.Wait()
	}
	q.mu.Unlock()
}
