/**
 * The simulator in its own process, so its work (building 100 KiB bodies, hashing, paging) does
 * not share an event loop with the docsync or floor code being timed: both subjects then pay
 * the same network hop and neither gets the simulator's CPU for free. Options come as one JSON
 * argument; the URLs go out as one JSON line; everything else goes through `/_admin`.
 */
import { type SimulatorOptions, startSimulator } from '../src/simulator/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const sim = await startSimulator(options);
process.stdout.write(
  `${JSON.stringify({
    apiUrl: sim.apiUrl,
    linkUrl: sim.linkUrl,
    webUrl: sim.webUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
  })}\n`,
);
const stop = () => void sim.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
