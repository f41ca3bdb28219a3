// The /ping scenario for k6: a constant arrival rate (an open loop, like this
// listing's generator and oha's -q with --latency-correction), 100 requests a
// second for 5 s. Start the service first (`cargo run -p ch07-axum -- serve`)
// and keep /hash/inline busy beside it to see the stall.
//
//   k6 run listings/ch07-axum/k6/ping.js
import http from 'k6/http';
import { check } from 'k6';

export const options = {
  scenarios: {
    ping: {
      executor: 'constant-arrival-rate',
      rate: 100,
      timeUnit: '1s',
      duration: '5s',
      preAllocatedVUs: 4,
      maxVUs: 50,
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.001'],
    http_req_duration: ['p(50)<5'],
  },
};

export default function () {
  const res = http.get('http://127.0.0.1:3000/ping');
  check(res, { 'pong': (r) => r.body === 'pong\n' });
}
