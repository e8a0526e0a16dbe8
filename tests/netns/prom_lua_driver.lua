-- Runs an OpenWrt collector of prometheus-node-exporter-lua outside OpenWrt:
--   lua5.1 prom_lua_driver.lua DIR NAME
-- loads DIR/NAME.lua and calls its scrape(), with metric() as the exporter
-- defines it (a "# TYPE" line when a family is made; then one line per
-- sample, labels written as given, value with %s), and prints the text on
-- stdout. Labels are written sorted by name, where the exporter takes
-- pairs()'s order, so runs compare. Exits 1 if the scrape failed, as the
-- exporter would set node_scrape_collector_success 0.

local dir, name = arg[1], arg[2]
if not dir or not name then
  io.stderr:write("usage: prom_lua_driver.lua DIR NAME\n")
  os.exit(2)
end

local function print_metric(mname, labels, value)
  local keys, parts = {}, {}
  for k in pairs(labels or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. '="' .. labels[k] .. '"' end
  local label_string = ""
  if #parts > 0 then label_string = "{" .. table.concat(parts, ",") .. "}" end
  print(string.format("%s%s %s", mname, label_string, value))
end

function metric(mname, mtype, labels, value)
  print("# TYPE " .. mname .. " " .. mtype)
  local outputter = function(l, v) print_metric(mname, l, v) end
  if value then outputter(labels, value) end
  return outputter
end

package.path = dir .. "/?.lua;" .. package.path
local collector = require(name)
local ok, err = pcall(collector.scrape)
if not ok then
  io.stderr:write(tostring(err) .. "\n")
  os.exit(1)
end
