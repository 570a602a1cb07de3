package awstest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// BasePath is where the fake is mounted; clients must keep it (a client
// that drops the base endpoint's path gets 404).
const BasePath = "/aws/"

const (
	elbNS = "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"
	rdsNS = "http://rds.amazonaws.com/doc/2014-10-31/"
)

// Server is a fake AWS speaking the EC2, ELBv2, RDS and SSM wire protocols.
type Server struct {
	srv *httptest.Server

	mu     sync.Mutex
	st     *State
	now    time.Time // the fake's clock: a second per request (Advance jumps)
	calls  map[string]int
	faults map[string][]fault
	seq    int

	pageSize int
	lagTicks int               // requests a new EC2 object stays invisible to Describe by ID
	lag      map[string]int    // object ID → requests left before it is visible
	drops    map[string][]drop // action → connections to drop
	launches int               // instances still to fail at launch (FailLaunch)
	tokens   map[string]string // RunInstances ClientToken → instance ID
	stalls   map[string]int    // action → requests left unanswered
}

type fault struct {
	n      int
	status int
	code   string
}

// State is everything the fake holds. Tests may change it through Edit to
// simulate drift (changes made behind Kyku's back).
type State struct {
	Zones          []Zone
	Vpcs           map[string]*Vpc
	IGWs           map[string]*IGW
	Subnets        map[string]*Subnet
	RouteTables    map[string]*RouteTable
	Groups         map[string]*Group
	Keys           map[string]*Key
	Instances      map[string]*Instance
	DBSubnetGroups map[string]*DBSubnetGroup
	DBs            map[string]*DB
	TGs            map[string]*TG
	LBs            map[string]*LB
	Listeners      map[string]*Listener
	ENIs           map[string]*ENI
	Params         map[string]string
	DBEvents       []DBEvent // RDS events, oldest first (DescribeEvents)
}

// New starts a fake on a loopback port; Close it when done.
func New() *Server {
	s := &Server{
		now:      Epoch,
		pageSize: DefaultPageSize,
		lagTicks: DefaultLag,
		lag:      map[string]int{},
		drops:    map[string][]drop{},
		tokens:   map[string]string{},
		stalls:   map[string]int{},
		calls:    map[string]int{},
		faults:   map[string][]fault{},
		st: &State{
			Zones: []Zone{
				{Name: "eu-west-1b", Type: "availability-zone", OptIn: "opt-in-not-required"},
				{Name: "eu-west-1a", Type: "availability-zone", OptIn: "opt-in-not-required"},
				{Name: "eu-west-1-dub-1a", Type: "local-zone", OptIn: "opted-in"},
				{Name: "eu-west-1c", Type: "availability-zone", OptIn: "opt-in-not-required"},
				{Name: "eu-west-1-wl1-dub-wlz-1", Type: "wavelength-zone", OptIn: "not-opted-in"},
			},
			Vpcs:        map[string]*Vpc{},
			IGWs:        map[string]*IGW{},
			Subnets:     map[string]*Subnet{},
			RouteTables: map[string]*RouteTable{},
			Groups:      map[string]*Group{}, Keys: map[string]*Key{},
			Instances: map[string]*Instance{}, DBSubnetGroups: map[string]*DBSubnetGroup{},
			DBs: map[string]*DB{}, TGs: map[string]*TG{}, LBs: map[string]*LB{},
			Listeners: map[string]*Listener{}, ENIs: map[string]*ENI{},
			Params: map[string]string{
				"/aws/service/debian/release/12/latest/amd64":                                        "ami-0debian12",
				"/aws/service/debian/release/13/latest/amd64":                                        "ami-0debian13",
				"/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id": "ami-0ubuntu2404",
				"/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id": "ami-0ubuntu2204",
				"/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64":              "ami-0al2023",
			},
		},
	}
	mux := http.NewServeMux()
	mux.HandleFunc(BasePath, s.serve)
	mux.HandleFunc(strings.TrimSuffix(BasePath, "/"), s.serve)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the base endpoint to give the SDK clients (includes BasePath).
func (s *Server) URL() string { return s.srv.URL + strings.TrimSuffix(BasePath, "/") }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Fail makes the next n calls of action fail with code and HTTP status
// (e.g. 503 "RequestLimitExceeded" for EC2, 400 "Throttling" for ELBv2/RDS,
// 400 "InvalidVpcID.NotFound" for eventual consistency).
func (s *Server) Fail(action string, n, status int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[action] = append(s.faults[action], fault{n: n, status: status, code: code})
}

// Throttle makes the next n calls of action fail with the service's
// throttling error.
func (s *Server) Throttle(action string, n int) {
	code, status := "Throttling", 400
	if ec2Actions[action] != nil {
		code, status = "RequestLimitExceeded", 503
	}
	s.Fail(action, n, status, code)
}

// Calls reports how many requests for action reached the server (failed
// ones included).
func (s *Server) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// Requests reports how many requests reached the server, every action.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

// Edit runs f on the state under the server's lock.
func (s *Server) Edit(f func(st *State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.st)
}

// Inventory lists the IDs of every live object, sorted (terminated
// instances are not live).
func (s *Server) Inventory() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	var ids []string
	for _, live := range [][]string{
		sortedKeys(st.Vpcs), sortedKeys(st.IGWs), sortedKeys(st.Subnets), sortedKeys(st.RouteTables),
		sortedKeys(st.Groups), sortedKeys(st.Keys), sortedKeys(st.DBSubnetGroups), sortedKeys(st.DBs),
		sortedKeys(st.TGs), sortedKeys(st.LBs), sortedKeys(st.Listeners),
	} {
		ids = append(ids, live...)
	}
	for id, in := range st.Instances {
		if in.State != "terminated" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func (s *Server) id(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s-%017x", prefix, s.seq)
}

// takeFault consumes one injected fault for action, if any.
func (s *Server) takeFault(action string) *apiError {
	fs := s.faults[action]
	if len(fs) == 0 {
		return nil
	}
	f := &fs[0]
	f.n--
	if f.n <= 0 {
		s.faults[action] = fs[1:]
	}
	return errf(f.status, f.code, "injected by awstest")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if strings.TrimSuffix(r.URL.Path, "/")+"/" != BasePath {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		s.serveSSM(w, strings.TrimPrefix(target, "AmazonSSM."), body)
		return
	}
	vals, err := url.ParseQuery(string(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f := form{vals}
	action := f.get("Action")
	if s.stalled(action) {
		// No answer until the client gives up (its timeout) or the
		// server closes.
		<-r.Context().Done()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[action]++
	s.tick()
	if s.dropped(w, action, false) {
		return
	}
	switch f.get("Version") {
	case "2016-11-15":
		h := ec2Actions[action]
		if h == nil {
			writeEC2Error(w, errf(400, "InvalidAction", "unsupported action %s", action))
			return
		}
		if e := s.takeFault(action); e != nil {
			writeEC2Error(w, e)
			return
		}
		kids, e := h(s, f)
		if e != nil {
			writeEC2Error(w, e)
			return
		}
		if s.dropped(w, action, true) {
			return
		}
		writeEC2(w, action, kids)
	case "2015-12-01", "2014-10-31":
		ns, table := elbNS, elbActions
		if f.get("Version") == "2014-10-31" {
			ns, table = rdsNS, rdsActions
		}
		h := table[action]
		if h == nil {
			writeQueryError(w, ns, errf(400, "InvalidAction", "unsupported action %s", action))
			return
		}
		if e := s.takeFault(action); e != nil {
			writeQueryError(w, ns, e)
			return
		}
		kids, e := h(s, f)
		if e != nil {
			writeQueryError(w, ns, e)
			return
		}
		if s.dropped(w, action, true) {
			return
		}
		writeQuery(w, ns, action, kids)
	default:
		http.Error(w, "unknown API version "+f.get("Version"), http.StatusBadRequest)
	}
}

func (s *Server) serveSSM(w http.ResponseWriter, op string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
	if e := s.takeFault(op); e != nil {
		writeJSON(w, e.status, map[string]string{"__type": e.code, "message": e.msg})
		return
	}
	if op != "GetParameter" {
		writeJSON(w, 400, map[string]string{"__type": "InvalidAction", "message": op})
		return
	}
	var in struct{ Name string }
	if err := json.Unmarshal(body, &in); err != nil {
		writeJSON(w, 400, map[string]string{"__type": "ValidationException", "message": err.Error()})
		return
	}
	v, ok := s.st.Params[in.Name]
	if !ok {
		writeJSON(w, 400, map[string]string{"__type": "ParameterNotFound", "message": in.Name})
		return
	}
	writeJSON(w, 200, map[string]any{"Parameter": map[string]any{
		"Name": in.Name, "Type": "String", "Value": v, "Version": 1, "DataType": "aws:ec2:image",
	}})
}
