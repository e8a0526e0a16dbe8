-- SPDX-License-Identifier: MIT
--
-- wanbond's collector for prometheus-node-exporter-lua (installed as
-- /usr/lib/lua/prometheus-collectors/wanbond.lua). It reads the bonds with
-- `wanbond -j show` and exports what `wanbond stats --prometheus` does
-- (docs/cli.md, "Prometheus"), under the same names: a family per counter of
-- the JSON's "counters" objects (a counter added to the daemon comes out
-- here too), the bonds' and uplinks' gauges in base units (seconds, bytes,
-- ratios), and info metrics carrying names. The exporter gives no HELP lines.
--
-- Lua 5.1, and cjson (OpenWrt's lua-cjson) as the exporter's other
-- collectors decode JSON.

local cjson = require "cjson"

-- The CLI honours WANBOND_CONTROL_DIR; stderr says only "no daemon running".
local command = "wanbond -j show 2>/dev/null"

-- The state's number in wanbond_uplink_state: the daemon's own order.
local state_numbers = { down = 0, probing = 1, up = 2, stale = 3 }

-- Among a bond's counters, those that are not counters (a peak and the
-- packet pool's gauges), with the unit their name then takes.
local bond_counter_gauges = {
  reorder_held_max = "_bytes",
  pool_bytes = "",
  pool_in_use_bytes = "",
  pool_high_water = "_bytes",
}

-- A label value as the text format wants it. The exporter writes labels as
-- they come, so escaping them is the collector's job.
local function escape(s)
  s = tostring(s or "")
  return (s:gsub("\\", "\\\\"):gsub('"', '\\"'):gsub("\n", "\\n"))
end

local function flag(v)
  if v then return 1 end
  return 0
end

-- A JSON number, or nil (null, absent).
local function number(v)
  if type(v) == "number" then return v end
  return nil
end

local function ns_to_seconds(v)
  v = number(v)
  return v and v / 1e9
end

local function bond_labels(b)
  return { bond = escape(b.name) }
end

local function uplink_labels(b, u)
  return { bond = escape(b.name), uplink = escape(u.name) }
end

local bond_gauges = {
  { "wanbond_bond_session_up", function(b) return flag(b.session) end },
  { "wanbond_bond_handshake_age_seconds", function(b) return ns_to_seconds(b.handshake_ago_ns) end },
  { "wanbond_daemon_uptime_seconds", function(b) return ns_to_seconds(b.uptime_ns) end },
  { "wanbond_bond_mtu_bytes", function(b) return number(b.mtu) end },
  { "wanbond_bond_send_buffer_bytes", function(b) return number(b.send_buffer) end },
  { "wanbond_bond_receive_window_bytes", function(b) return number(b.receive_window) end },
  { "wanbond_bond_send_queue_bytes", function(b) return number(b.send_queue) end },
  { "wanbond_bond_memory_bytes", function(b) return number(b.memory) end },
}

local uplink_gauges = {
  { "wanbond_uplink_up", function(u) return flag(u.state == "up") end },
  { "wanbond_uplink_enabled", function(u) return flag(u.enabled) end },
  { "wanbond_uplink_backup", function(u) return flag(u.backup) end },
  { "wanbond_uplink_weight", function(u) return number(u.weight) end },
  { "wanbond_uplink_rtt_seconds", function(u) return ns_to_seconds(u.srtt_ns) end },
  { "wanbond_uplink_min_rtt_seconds", function(u) return ns_to_seconds(u.min_rtt_ns) end },
  { "wanbond_uplink_rtt_variation_seconds", function(u) return ns_to_seconds(u.rttvar_ns) end },
  { "wanbond_uplink_loss_ratio", function(u) return number(u.loss_ppm) and u.loss_ppm / 1e6 end },
  { "wanbond_uplink_cwnd_bytes", function(u) return number(u.cwnd) end },
  { "wanbond_uplink_in_flight_bytes", function(u) return number(u.in_flight) end },
  { "wanbond_uplink_pacing_rate_bytes_per_second", function(u) return number(u.pacing_rate) end },
  { "wanbond_uplink_pmtu_bytes", function(u) return number(u.pmtu) end },
  { "wanbond_uplink_max_packet_bytes", function(u) return number(u.max_packet) end },
  { "wanbond_uplink_pmtu_searching", function(u) return flag(u.pmtu_searching) end },
}

local function read_bonds()
  local pipe = assert(io.popen(command, "r"))
  local text = pipe:read("*a")
  pipe:close()
  local ok, bonds = pcall(cjson.decode, text)
  if not ok or type(bonds) ~= "table" then
    error("wanbond: no JSON from '" .. command .. "'")
  end
  return bonds
end

-- Each uplink of each bond, as fn(bond, uplink).
local function each_uplink(bonds, fn)
  for _, b in ipairs(bonds) do
    for _, u in ipairs(b.uplinks or {}) do
      fn(b, u)
    end
  end
end

-- The counters' names found in a list of counter objects, sorted.
local function counter_names(sets)
  local seen, names = {}, {}
  for _, counters in ipairs(sets) do
    for name in pairs(counters) do
      if not seen[name] then
        seen[name] = true
        names[#names + 1] = name
      end
    end
  end
  table.sort(names)
  return names
end

-- The bonds' objects of one key ("counters", "device_counters"), in order.
local function bond_sets(bonds, key)
  local sets = {}
  for _, b in ipairs(bonds) do sets[#sets + 1] = b[key] or {} end
  return sets
end

local function uplink_sets(bonds)
  local sets = {}
  each_uplink(bonds, function(_, u) sets[#sets + 1] = u.counters or {} end)
  return sets
end

local function scrape_bonds(bonds)
  local info = metric("wanbond_bond_info", "gauge")
  for _, b in ipairs(bonds) do
    local scheduler = b.scheduler or {}
    info({ bond = escape(b.name), role = escape(b.role), tun = escape(b.tun), peer = escape(b.peer),
           policy = escape(scheduler.policy), rules_off = escape(scheduler.rules_off_names) }, 1)
  end
  for _, g in ipairs(bond_gauges) do
    local m = metric(g[1], "gauge")
    for _, b in ipairs(bonds) do
      local v = g[2](b)
      if v then m(bond_labels(b), v) end
    end
  end
  for _, name in ipairs(counter_names(bond_sets(bonds, "counters"))) do
    local unit = bond_counter_gauges[name]
    local m = metric("wanbond_bond_" .. name .. (unit or "_total"), unit and "gauge" or "counter")
    for _, b in ipairs(bonds) do
      local v = number((b.counters or {})[name])
      if v then m(bond_labels(b), v) end
    end
  end
  -- The daemon's sockets', shared by its bonds: the same values under each bond.
  for _, name in ipairs(counter_names(bond_sets(bonds, "device_counters"))) do
    local m = metric("wanbond_device_" .. name .. "_total", "counter")
    for _, b in ipairs(bonds) do
      local v = number((b.device_counters or {})[name])
      if v then m(bond_labels(b), v) end
    end
  end
end

local function scrape_uplinks(bonds)
  local info = metric("wanbond_uplink_info", "gauge")
  each_uplink(bonds, function(b, u)
    info({ bond = escape(b.name), uplink = escape(u.name), state = escape(u.state), reason = escape(u.state_reason),
           socket_error = escape(u.socket_error),
           device = escape(u.device), endpoint = escape(u.endpoint) }, 1)
  end)
  local state = metric("wanbond_uplink_state", "gauge")
  each_uplink(bonds, function(b, u)
    local n = state_numbers[u.state]
    if n then state(uplink_labels(b, u), n) end
  end)
  for _, g in ipairs(uplink_gauges) do
    local m = metric(g[1], "gauge")
    each_uplink(bonds, function(b, u)
      local v = g[2](u)
      if v then m(uplink_labels(b, u), v) end
    end)
  end
  for _, name in ipairs(counter_names(uplink_sets(bonds))) do
    local m = metric("wanbond_uplink_" .. name .. "_total", "counter")
    each_uplink(bonds, function(b, u)
      local v = number((u.counters or {})[name])
      if v then m(uplink_labels(b, u), v) end
    end)
  end
end

local function scrape()
  local bonds = read_bonds()
  scrape_bonds(bonds)
  scrape_uplinks(bonds)
end

return { scrape = scrape }
