// Exercises `hopdb serve` with the official Neo4j JavaScript driver (neo4j-driver 5.x) and
// prints one JSON line of what came back, for python/tests/test_driver_js.py to check; exits
// non-zero with the error on stderr when something fails outright.
//
//   node test.mjs bolt://127.0.0.1:7687      (or HOPDB_BOLT_URI=...)
//
// Values are printed in the typed form of drivers/go/main.go (see there), so that one table
// of expectations checks both drivers.
import { readFileSync } from 'node:fs'
import neo4j from 'neo4j-driver'

const { Date, DateTime, Duration, LocalDateTime, LocalTime, Node, Path, Relationship, Time } = neo4j.types

// Authentication is off on the test server: any credentials are accepted.
const AUTH = neo4j.auth.basic('neo4j', 'any password: authentication is disabled')

const num = x => (neo4j.isInt(x) ? x.toNumber() : x)
const hms = t => [num(t.hour), num(t.minute), num(t.second), num(t.nanosecond)]
const ymd = t => [num(t.year), num(t.month), num(t.day)]
const pad = (n, w) => String(n).padStart(w, '0')

function enc (v) {
  if (v === null || v === undefined) return null
  if (typeof v === 'boolean') return v
  if (neo4j.isInt(v)) return { int: v.toString() }
  if (typeof v === 'bigint') return { int: v.toString() }
  if (typeof v === 'number') return { float: v }
  if (typeof v === 'string') return { string: v }
  if (v instanceof Int8Array || v instanceof Uint8Array) {
    return { bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') }
  }
  if (Array.isArray(v)) return v.map(enc)
  if (v instanceof Date) {
    const [y, m, d] = ymd(v)
    return { date: `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}` }
  }
  if (v instanceof LocalTime) return { localtime: hms(v) }
  if (v instanceof Time) return { time: [...hms(v), num(v.timeZoneOffsetSeconds)] }
  if (v instanceof LocalDateTime) return { localdatetime: [...ymd(v), ...hms(v)] }
  if (v instanceof DateTime) {
    const parts = [...ymd(v), ...hms(v)]
    if (v.timeZoneId) return { datetimezone: [...parts, v.timeZoneId, num(v.timeZoneOffsetSeconds)] }
    return { datetime: [...parts, num(v.timeZoneOffsetSeconds)] }
  }
  if (v instanceof Duration) return { duration: [num(v.months), num(v.days), num(v.seconds), num(v.nanoseconds)] }
  if (v instanceof Node) {
    return { node: { elementId: v.elementId, labels: [...v.labels].sort(), props: enc(v.properties) } }
  }
  if (v instanceof Relationship) {
    return {
      relationship: {
        elementId: v.elementId,
        type: v.type,
        start: v.startNodeElementId,
        end: v.endNodeElementId,
        props: enc(v.properties)
      }
    }
  }
  if (v instanceof Path) {
    const nodes = [v.start, ...v.segments.map(s => s.end)]
    return { path: { nodes: nodes.map(enc), relationships: v.segments.map(s => enc(s.relationship)) } }
  }
  if (Object.getPrototypeOf(v) === Object.prototype) {
    return { map: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, enc(x)])) }
  }
  return { unknown: `${v?.constructor?.name} ${String(v)}` }
}

// Parameters sent as `$v`, returned, and compared in Cypher with what they should be (the
// same table as drivers/go/main.go). Plain JavaScript numbers are floats; integers are neo4j.int.
const VALUES = [
  ['null', null, '$v IS NULL'],
  ['bool', true, '$v = true'],
  ['int', neo4j.int(42), '$v = 42'],
  ['int_negative', neo4j.int(-7), '$v = -7'],
  ['int_2_53_plus_1', neo4j.int('9007199254740993'), '$v = 9007199254740993'],
  ['int_max', neo4j.int('9223372036854775807'), '$v = 9223372036854775807'],
  ['int_min', neo4j.int('-9223372036854775808'), '$v = -9223372036854775807 - 1'],
  ['float', 3.141592653589793, '$v = 3.141592653589793'],
  ['float_big', 1.7976931348623157e308, '$v = 1.7976931348623157e308'],
  ['float_tiny', 5e-324, '$v = 5e-324'],
  ['string', 'héllo wörld ✓ 日本語 🚀', "$v = 'héllo wörld ✓ 日本語 🚀'"],
  ['string_empty', '', "$v = ''"],
  ['bytes', Int8Array.from([0x00, 0x01, -1, 0x7f, -128]), ''],
  ['list', [neo4j.int(1), 'two', 3.5, null, [true]],
    "$v[0] = 1 AND $v[1] = 'two' AND $v[2] = 3.5 AND $v[3] IS NULL AND $v[4] = [true] AND size($v) = 5"],
  ['map', { a: neo4j.int(1), b: ['x'], nested: { k: null } },
    "$v.a = 1 AND $v.b = ['x'] AND $v.nested.k IS NULL AND keys($v.nested) = ['k'] AND size(keys($v)) = 3"],
  ['date', new Date(2024, 2, 29), "$v = date('2024-02-29')"],
  ['date_old', new Date(1815, 12, 10), "$v = date('1815-12-10')"],
  ['localtime', new LocalTime(8, 15, 30, 123456789), "$v = localtime('08:15:30.123456789')"],
  ['time', new Time(8, 15, 30, 500000000, 19800), "$v = time('08:15:30.5+05:30')"],
  ['localdatetime', new LocalDateTime(2024, 6, 1, 12, 0, 0, 1), "$v = localdatetime('2024-06-01T12:00:00.000000001')"],
  ['datetime', new DateTime(2024, 6, 1, 12, 0, 0, 987654321, -5 * 3600),
    "$v = datetime('2024-06-01T12:00:00.987654321-05:00')"],
  // A named zone with its offset at that instant (without it the driver works the offset out,
  // warning that ambiguous local times may be misread).
  ['datetime_zone', new DateTime(2024, 6, 1, 12, 30, 15, 250000000, 7200, 'Europe/Stockholm'),
    "$v = datetime('2024-06-01T12:30:15.25[Europe/Stockholm]') AND $v.timezone = 'Europe/Stockholm'"],
  ['duration', new Duration(14, 3, 3723, 500), '$v = duration({months: 14, days: 3, seconds: 3723, nanoseconds: 500})']
]

const single = async (runner, query, params) => {
  const { records } = await runner.run(query, params)
  if (records.length !== 1) throw new Error(`${query}: ${records.length} records, expected one`)
  return records[0]
}

const countLabel = async (runner, label) =>
  (await single(runner, `MATCH (n:${label}) RETURN count(n) AS c`)).get('c')

function driverVersion () {
  try {
    const url = new URL('./node_modules/neo4j-driver/package.json', import.meta.url)
    return JSON.parse(readFileSync(url, 'utf8')).version
  } catch {
    return 'unknown'
  }
}

async function main (uri) {
  const out = { driver: driverVersion() }
  const driver = neo4j.driver(uri, AUTH)
  try {
    await driver.verifyConnectivity()
    const info = await driver.getServerInfo()
    out.agent = info.agent
    out.protocol = String(info.protocolVersion)

    const session = driver.session()
    try {
      // Auto-commit statements with parameters.
      const created = await session.run('CREATE (:Auto {n: $n, name: $name})', { n: neo4j.int(1), name: 'one' })
      const counters = created.summary.counters.updates()
      const matched = await single(session, 'MATCH (a:Auto {name: $name}) RETURN a.n AS n, a.name AS name', { name: 'one' })
      let rows = 0
      let sum = 0
      await new Promise((resolve, reject) => {
        session.run('UNWIND range(1, $n) AS x RETURN x', { n: neo4j.int(2500) }).subscribe({
          onNext: r => { rows++; sum += r.get('x').toNumber() },
          onCompleted: resolve,
          onError: reject
        })
      })
      const eager = await driver.executeQuery('MATCH (a:Auto) WHERE a.n = $n RETURN a.name AS name', { n: neo4j.int(1) })
      out.auto = {
        nodes_created: counters.nodesCreated,
        labels_added: counters.labelsAdded,
        properties_set: counters.propertiesSet,
        query_type: created.summary.queryType,
        n: enc(matched.get('n')),
        name: enc(matched.get('name')),
        rows,
        sum,
        execute_query: { keys: eager.keys, names: eager.records.map(r => enc(r.get('name'))) }
      }

      // Managed transactions. The write is retry-safe (MERGE: running it again changes
      // nothing), as a function the driver may retry must be; it runs twice, leaving one node.
      let attempts = 0
      const merge = async tx => {
        attempts++
        return (await single(tx, 'MERGE (m:Managed {name: $name}) RETURN m.name AS name', { name: 'Ada' })).get('name')
      }
      const written = await session.executeWrite(merge)
      await session.executeWrite(merge)
      const read = await session.executeRead(tx => countLabel(tx, 'Managed'))
      out.managed = { written: enc(written), attempts, count: enc(read) }

      // An explicit transaction rolled back leaves nothing; one committed keeps its node.
      let tx = session.beginTransaction()
      await tx.run('CREATE (:Rolled {n: $n})', { n: neo4j.int(1) })
      const inside = await countLabel(tx, 'Rolled')
      await tx.rollback()
      const after = await countLabel(session, 'Rolled')
      tx = session.beginTransaction()
      await tx.run('CREATE (:Kept)')
      await tx.commit()
      const kept = await countLabel(session, 'Kept')
      out.rollback = { inside: num(inside), after: num(after), committed: num(kept) }

      // Every value type as a parameter, returned, and checked in Cypher.
      out.values = {}
      out.same = {}
      for (const [name, value, check] of VALUES) {
        let record
        try {
          record = await single(session, `RETURN $v AS v, ${check || 'null'} AS same`, { v: value })
        } catch (e) {
          throw new Error(`value ${name}: ${e.message}`, { cause: e })
        }
        out.values[name] = enc(record.get('v'))
        out.same[name] = record.get('same')
      }
      const built = await single(session, "RETURN datetime('2024-01-15T08:00:00[Europe/Paris]') AS paris, " +
        "datetime('2024-06-01T12:00-05:00') AS fixed, duration('P1M2DT3.5S') AS duration")
      out.built = Object.fromEntries(built.keys.map(k => [k, enc(built.get(k))]))

      // Nodes, relationships and paths, both ways along the relationship.
      await session.run('CREATE (:Person {name: $a})-[:KNOWS {since: $since}]->(:Person:Author {name: $b})',
        { a: 'Ada', b: 'Charles', since: neo4j.int(1833) })
      const graph = await single(session, "MATCH p = (a:Person {name: 'Ada'})-[r:KNOWS]->(b) MATCH q = (b)<-[:KNOWS]-(a) " +
        'RETURN a, r, b, p, q, elementId(a) AS ida, elementId(b) AS idb, elementId(r) AS idr')
      out.graph = Object.fromEntries(graph.keys.map(k => [k, enc(graph.get(k))]))

      // A syntax error is a Neo4jError with Neo4j's code; the session serves on.
      const syntax = { raised: false }
      try {
        await session.run('MATCH (n RETURN n')
      } catch (e) {
        syntax.raised = true
        syntax.type = e instanceof neo4j.Neo4jError ? 'Neo4jError' : e?.constructor?.name
        syntax.code = e.code
        syntax.message = e.message
      }
      syntax.after = enc((await single(session, 'RETURN 1 AS x')).get('x'))
      out.syntax_error = syntax
    } finally {
      await session.close()
    }
  } finally {
    await driver.close()
  }
  out.routing = await routed(uri)
  return out
}

// The same server through the routing scheme: the driver asks it for a routing table.
async function routed (boltUri) {
  const uri = boltUri.replace(/^bolt:\/\//, 'neo4j://')
  const driver = neo4j.driver(uri, AUTH)
  try {
    await driver.verifyConnectivity()
    const session = driver.session()
    let written, read
    try {
      written = await session.executeWrite(async tx =>
        (await single(tx, 'CREATE (r:Routed {at: $at}) RETURN count(r) AS c', { at: 'neo4j://' })).get('c'))
      read = await session.executeRead(async tx => (await single(tx, 'MATCH (r:Routed) RETURN count(r) AS c')).get('c'))
    } finally {
      await session.close()
    }
    const eager = await driver.executeQuery('MATCH (r:Routed {at: $at}) RETURN count(r) AS c', { at: 'neo4j://' },
      { routing: neo4j.routing.READ })
    return { scheme: new URL(uri).protocol.replace(/:$/, ''), written: enc(written), read: enc(read), query: enc(eager.records[0].get('c')) }
  } catch (e) {
    throw new Error(`neo4j:// scheme: ${e.message}`, { cause: e })
  } finally {
    await driver.close()
  }
}

const uri = process.argv[2] || process.env.HOPDB_BOLT_URI
if (!uri) {
  console.error('usage: node test.mjs bolt://HOST:PORT (or HOPDB_BOLT_URI)')
  process.exit(2)
}
const timer = setTimeout(() => { console.error('error: timed out after 60 s'); process.exit(1) }, 60_000)
try {
  const out = await main(uri)
  process.stdout.write(JSON.stringify(out) + '\n')
  clearTimeout(timer)
} catch (e) {
  console.error('error:', e?.code ? `${e.code}: ` : '', e?.stack || e)
  process.exit(1)
}
