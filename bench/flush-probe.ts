/**
 * A process of its own that times the disk's flush as `timeAppendFlushes` does, while a bench loads
 * the machine: `tsx bench/flush-probe.ts <samples> <perSecond> <record bytes as text>`. Prints
 * "ready" as it starts flushing, then the sorted times in ms as one JSON line.
 */
import { timeAppendFlushes } from "./disk-flush.js";

const [samples, perSecond, record] = process.argv.slice(2);
console.log("ready");
const times = await timeAppendFlushes(Buffer.from(record!), Number(samples), Number(perSecond));
console.log(JSON.stringify(times));
