'use strict';
'require view';
'require poll';
'require rpc';
'require ui';
'require dom';

/*
 * wanbond's status page: per bond its session and throughput, per uplink
 * its state with the reason and how long, RTT, loss, share and path MTU,
 * and charts of the last minutes. It polls "ubus call wanbond status"
 * (the rpcd plugin: the daemon's own figures) every second and redraws in
 * place; throughput is the difference of the byte counters between polls.
 */

var POLL_SECONDS = 1;
var HISTORY_SECONDS = 180;
var COLORS = [ '#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf' ];

var callStatus = rpc.declare({ object: 'wanbond', method: 'status', params: [ 'bond' ], expect: { '': {} } });
var callCheck = rpc.declare({ object: 'wanbond', method: 'check', params: [ 'bond' ], expect: { '': {} } });
var callUplinkSet = rpc.declare({ object: 'wanbond', method: 'uplink_set', params: [ 'bond', 'uplink', 'enabled' ] });
var callStatsReset = rpc.declare({ object: 'wanbond', method: 'stats_reset', params: [ 'bond' ] });
var callRestart = rpc.declare({ object: 'wanbond', method: 'restart', params: [ 'bond' ] });

/* ---- numbers as people read them ------------------------------------------------------------ */

function formatDuration(ns) {
	var s = Math.floor(ns / 1e9);

	if (s < 120)
		return _('%d s').format(s);
	if (s < 7200)
		return _('%d min').format(Math.floor(s / 60));
	if (s < 172800)
		return _('%d h').format(Math.floor(s / 3600));
	return _('%d days').format(Math.floor(s / 86400));
}

function formatRate(bitsPerSecond) {
	if (bitsPerSecond >= 1e9)
		return '%.2f Gbit/s'.format(bitsPerSecond / 1e9);
	if (bitsPerSecond >= 1e6)
		return '%.1f Mbit/s'.format(bitsPerSecond / 1e6);
	if (bitsPerSecond >= 1e3)
		return '%.0f kbit/s'.format(bitsPerSecond / 1e3);
	return '%.0f bit/s'.format(bitsPerSecond);
}

function formatMs(ns) {
	return '%.1f ms'.format(ns / 1e6);
}

function formatPercent(ppm) {
	return '%.1f %%'.format(ppm / 1e4);
}

/* ---- an uplink's state in words ------------------------------------------------------------- */

/*
 * What the operator must see first: switched off, the interface down, no
 * answer, or up; with the daemon's reason and how long it has been so.
 * "reason" is what keeps the uplink out of use (empty when nothing does);
 * "state_reason" is what made the state what it is.
 */
function uplinkState(u) {
	var since = formatDuration(u.state_age_ns || 0);
	var why = u.reason || u.state_reason || '';

	if (!u.enabled)
		return { kind: 'off', label: _('switched off'), text: _('off: %s').format(why || _('disabled by the operator')) };
	if (!u.interface_up)
		return { kind: 'down', label: _('down'), text: _('down: %s').format(why) };
	if (u.state == 'up')
		return { kind: 'up', label: _('up'), text: why ? _('up for %s: %s').format(since, why) : _('up for %s').format(since) };
	if (u.state == 'probing')
		return { kind: 'probing', label: _('probing'), text: _('probing for %s: %s').format(since, why) };
	return { kind: 'down', label: _('down'), text: why ? _('down for %s: %s').format(since, why) : _('down for %s').format(since) };
}

var STATE_STYLE = {
	up: 'background:#2e7d32;color:#fff',
	probing: 'background:#ef6c00;color:#fff',
	down: 'background:#c62828;color:#fff',
	off: 'background:#757575;color:#fff'
};

function stateBadge(st) {
	return E('span', {
		'class': 'wanbond-state wanbond-state-' + st.kind,
		'style': 'display:inline-block;padding:0 .5em;border-radius:3px;font-weight:bold;' + STATE_STYLE[st.kind]
	}, st.label);
}

/* ---- history and charts ---------------------------------------------------------------------- */

/* Per bond and uplink: the last HISTORY_SECONDS of samples {t, tx, rx, rtt}. */
var history = {};
var lastCounters = {};

function remember(bondName, bond, now) {
	var h = history[bondName] || (history[bondName] = {});
	var rates = {};

	Object.keys(bond.uplinks || {}).forEach(function(name) {
		var u = bond.uplinks[name], c = u.counters || {};
		var key = bondName + '/' + name, prev = lastCounters[key];
		var tx = 0, rx = 0;

		if (prev && now > prev.t && c.tx_bytes >= prev.tx && c.rx_bytes >= prev.rx) {
			tx = (c.tx_bytes - prev.tx) * 8000 / (now - prev.t);
			rx = (c.rx_bytes - prev.rx) * 8000 / (now - prev.t);
		}
		lastCounters[key] = { t: now, tx: c.tx_bytes || 0, rx: c.rx_bytes || 0 };
		rates[name] = { tx: tx, rx: rx };

		var samples = h[name] || (h[name] = []);
		if (prev)
			samples.push({ t: now, tx: tx, rx: rx, rtt: u.state == 'up' ? u.srtt_ns / 1e6 : null });
		while (samples.length && samples[0].t < now - HISTORY_SECONDS * 1000)
			samples.shift();
	});
	return rates;
}

function svgElement(tag, attrs) {
	var el = document.createElementNS('http://www.w3.org/2000/svg', tag);

	Object.keys(attrs || {}).forEach(function(k) { el.setAttribute(k, attrs[k]); });
	return el;
}

/* A chart as LuCI's realtime graphs look: a grid, a scale, a polyline per series. */
function drawChart(svg, series, now, format) {
	var width = 800, height = 180, top = 0;

	while (svg.firstChild)
		svg.removeChild(svg.firstChild);
	series.forEach(function(s) {
		s.points.forEach(function(p) { if (p.v != null && p.v > top) top = p.v; });
	});
	top = top > 0 ? top * 1.1 : 1;

	for (var i = 1; i <= 3; i++) {
		var y = height - height * i / 4;
		svg.appendChild(svgElement('line', { x1: 0, x2: width, y1: y, y2: y, stroke: '#ccc', 'stroke-width': 1 }));
		var label = svgElement('text', { x: 4, y: y - 3, fill: '#666', 'font-size': 11 });
		label.textContent = format(top * i / 4);
		svg.appendChild(label);
	}
	for (var m = 1; m * 60 < HISTORY_SECONDS; m++) {
		var x = width - width * m * 60 / HISTORY_SECONDS;
		svg.appendChild(svgElement('line', { x1: x, x2: x, y1: 0, y2: height, stroke: '#eee', 'stroke-width': 1 }));
	}
	series.forEach(function(s) {
		var pts = [];

		s.points.forEach(function(p) {
			if (p.v == null)
				return;
			pts.push('%.1f,%.1f'.format(width - (now - p.t) / 1000 * width / HISTORY_SECONDS, height - p.v / top * height));
		});
		if (pts.length > 1)
			svg.appendChild(svgElement('polyline', {
				points: pts.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 2,
				'stroke-dasharray': s.dashed ? '5,3' : 'none'
			}));
	});
}

function chartBox(title, id) {
	return E('div', { 'style': 'flex:1 1 380px;min-width:300px' }, [
		E('div', { 'style': 'font-weight:bold;margin:.5em 0 .2em' }, title),
		E('div', { 'style': 'border:1px solid #ddd' }, [
			svgElement('svg', { id: id, viewBox: '0 0 800 180', preserveAspectRatio: 'none', width: '100%', height: '180' })
		])
	]);
}

/* ---- the page --------------------------------------------------------------------------------- */

return view.extend({
	load: function() {
		return Promise.all([
			L.resolveDefault(callStatus(), {}),
			L.resolveDefault(callCheck(), {})
		]);
	},

	handleUplinkSwitch: function(bond, uplink, enabled) {
		var title = enabled ? _('Switch uplink %s on?').format(uplink) : _('Switch uplink %s off?').format(uplink);
		var text = enabled
			? _('Bond %s takes uplink %s back into use.').format(bond, uplink)
			: _('Bond %s stops sending on uplink %s until you switch it on again. Its interface stays up.').format(bond, uplink);

		return this.confirm(title, text, function() {
			return callUplinkSet(bond, uplink, enabled);
		});
	},

	handleStatsReset: function(bond) {
		return this.confirm(_('Reset the counters of bond %s?').format(bond),
			_('Every counter of the bond and its uplinks starts from zero again. The traffic goes on.'),
			function() { return callStatsReset(bond); });
	},

	handleRestart: function(bond) {
		return this.confirm(_('Restart bond %s?').format(bond),
			_('Its network interface goes down and up: the tunnel stops for a few seconds and every connection through it must recover.'),
			function() { return callRestart(bond); });
	},

	/* LuCI's confirm dialog; the action's error object, if any, as a notification. */
	confirm: function(title, text, action) {
		return new Promise(function(resolve) {
			ui.showModal(title, [
				E('p', text),
				E('div', { 'class': 'right' }, [
					E('button', { 'class': 'btn cbi-button', 'click': function() { ui.hideModal(); resolve(); } }, _('Cancel')),
					' ',
					E('button', {
						'class': 'btn cbi-button cbi-button-negative wanbond-confirm',
						'click': function() {
							ui.hideModal();
							action().then(function(res) {
								if (res && res.error)
									ui.addNotification(null, E('p', '%s: %s'.format(res.error, res.detail || '')), 'danger');
							}).catch(function(err) {
								ui.addNotification(null, E('p', err.message), 'danger');
							}).finally(resolve);
						}
					}, _('Confirm'))
				])
			]);
		});
	},

	renderUplinkRow: function(bondName, u, rate, color, server) {
		var st = uplinkState(u);
		/* A server's uplinks are its peer's paths: they are switched on the router. */
		var action = server ? '' : u.enabled
			? E('button', { 'class': 'btn cbi-button cbi-button-negative', 'data-action': 'off',
				'click': ui.createHandlerFn(this, 'handleUplinkSwitch', bondName, u.name, false) }, _('Switch off'))
			: E('button', { 'class': 'btn cbi-button cbi-button-positive', 'data-action': 'on',
				'click': ui.createHandlerFn(this, 'handleUplinkSwitch', bondName, u.name, true) }, _('Switch on'));
		var up = u.state == 'up' && u.enabled && u.interface_up;

		return E('tr', { 'class': 'tr wanbond-uplink', 'data-uplink': u.name, 'data-state': st.kind }, [
			E('td', { 'class': 'td' }, [
				E('span', { 'style': 'color:' + color + ';font-weight:bold' }, '\u25a0 '), E('strong', u.name),
				E('br'), E('small', u.device || '-')
			]),
			E('td', { 'class': 'td' }, [ stateBadge(st), E('br'), E('small', { 'class': 'wanbond-reason' }, st.text) ]),
			E('td', { 'class': 'td' }, up ? '%s \u00b1 %s'.format(formatMs(u.srtt_ns), formatMs(u.rttvar_ns)) : '-'),
			E('td', { 'class': 'td' }, formatPercent(u.loss_ppm || 0)),
			E('td', { 'class': 'td' }, formatPercent(u.share_ppm || 0)),
			E('td', { 'class': 'td' }, '\u2191 %s'.format(formatRate(rate.tx)) + ' \u2193 %s'.format(formatRate(rate.rx))),
			E('td', { 'class': 'td' }, u.max_packet ? _('%d bytes').format(u.max_packet) + (u.pmtu_searching ? ' ' + _('(searching)') : '') : '-'),
			E('td', { 'class': 'td right' }, action)
		]);
	},

	renderBond: function(bondName, bond, rates, check) {
		var names = Object.keys(bond.uplinks || {}).sort();
		var c = bond.counters || {};
		var up = 0, down = 0;
		var self = this;

		names.forEach(function(n) { up += rates[n].tx; down += rates[n].rx; });
		var session = bond.session
			? _('session up, handshake %s ago').format(formatDuration(bond.handshake_ago_ns || 0))
			: _('no session with the peer');
		var head = E('table', { 'class': 'table' }, [
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left', 'width': '25%' }, _('Role')), E('td', { 'class': 'td left' }, bond.role) ]),
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, _('Session')),
				E('td', { 'class': 'td left wanbond-session' }, [ stateBadge({ kind: bond.session ? 'up' : 'down', label: bond.session ? _('up') : _('down') }), ' ', session ]) ]),
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, _('Peer')), E('td', { 'class': 'td left' }, E('code', bond.peer || '-')) ]),
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, _('Tunnel device')),
				E('td', { 'class': 'td left' }, '%s (MTU %d), %s %s'.format(bond.tun, bond.mtu, _('running for'), formatDuration(bond.uptime_ns || 0))) ]),
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, _('Throughput now')),
				E('td', { 'class': 'td left wanbond-throughput' }, '\u2191 %s  \u2193 %s'.format(formatRate(up), formatRate(down))) ]),
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, _('Scheduler')),
				E('td', { 'class': 'td left' }, bond.scheduler ? bond.scheduler.policy + (bond.scheduler.rules_off ? ' (' + _('rules off: %s').format(bond.scheduler.rules_off_names) + ')' : '') : '-') ]),
			E('tr', { 'class': 'tr' }, [ E('td', { 'class': 'td left' }, _('Resent, reinjected, reorder skips')),
				E('td', { 'class': 'td left' }, '%d, %d, %d'.format(c.retransmits || 0, c.opp_reinject || 0, c.reorder_skips || 0)) ])
		]);
		var rows = [ E('tr', { 'class': 'tr table-titles' }, [
			E('th', { 'class': 'th' }, _('Uplink')), E('th', { 'class': 'th' }, _('State')),
			E('th', { 'class': 'th' }, _('RTT \u00b1 variation')), E('th', { 'class': 'th' }, _('Loss')),
			E('th', { 'class': 'th' }, _('Share')), E('th', { 'class': 'th' }, _('Throughput')),
			E('th', { 'class': 'th' }, _('Path MTU')), E('th', { 'class': 'th right' }, _('Actions'))
		]) ];
		names.forEach(function(n, i) {
			rows.push(self.renderUplinkRow(bondName, bond.uplinks[n], rates[n], COLORS[i % COLORS.length], bond.role == 'server'));
		});

		return E('div', { 'class': 'cbi-section wanbond-bond', 'data-bond': bondName }, [
			E('h3', _('Bond %s').format(bondName)),
			check && !check.ok ? E('div', { 'class': 'alert-message warning wanbond-check' },
				_('The configuration in /etc/config/wanbond does not check, and the bond runs on the one before: %s').format(check.error)) : '',
			head,
			E('table', { 'class': 'table wanbond-uplinks' }, rows),
			E('div', { 'style': 'display:flex;flex-wrap:wrap;gap:1em' }, [
				chartBox(_('Throughput per uplink (sent solid, received dashed), last 3 minutes'), 'wanbond-rate-' + bondName),
				chartBox(_('RTT per uplink, last 3 minutes'), 'wanbond-rtt-' + bondName)
			]),
			E('div', { 'class': 'right', 'style': 'margin-top:.5em' }, [
				E('button', { 'class': 'btn cbi-button cbi-button-action', 'data-action': 'reset',
					'click': ui.createHandlerFn(this, 'handleStatsReset', bondName) }, _('Reset counters')),
				' ',
				/* A server's bonds are its peers, all run by one interface: restarted in Network -> Interfaces. */
				bond.role == 'server' ? '' : E('button', { 'class': 'btn cbi-button cbi-button-negative', 'data-action': 'restart',
					'click': ui.createHandlerFn(this, 'handleRestart', bondName) }, _('Restart bond'))
			])
		]);
	},

	drawCharts: function(bondName, bond, now) {
		var names = Object.keys(bond.uplinks || {}).sort();
		var h = history[bondName] || {};
		var rate = document.getElementById('wanbond-rate-' + bondName);
		var rtt = document.getElementById('wanbond-rtt-' + bondName);
		var rateSeries = [], rttSeries = [];

		names.forEach(function(n, i) {
			var samples = h[n] || [], color = COLORS[i % COLORS.length];

			rateSeries.push({ color: color, points: samples.map(function(s) { return { t: s.t, v: s.tx }; }) });
			rateSeries.push({ color: color, dashed: true, points: samples.map(function(s) { return { t: s.t, v: s.rx }; }) });
			rttSeries.push({ color: color, points: samples.map(function(s) { return { t: s.t, v: s.rtt }; }) });
		});
		if (rate)
			drawChart(rate, rateSeries, now, formatRate);
		if (rtt)
			drawChart(rtt, rttSeries, now, function(v) { return '%.0f ms'.format(v); });
	},

	update: function(container, status, checks) {
		var now = Date.now();
		var bonds = status.bonds || {};
		var names = Object.keys(bonds).sort();
		var nodes = [];
		var self = this;

		var configured = (checks.bonds || {});
		var serverRuns = names.some(function(n) { return bonds[n].role == 'server'; });

		if (status.error && names.length)
			nodes.push(E('div', { 'class': 'alert-message warning wanbond-error' },
				status.detail ? '%s: %s'.format(status.error, status.detail) : status.error));
		if (!names.length && !Object.keys(configured).length)
			nodes.push(E('div', { 'class': 'alert-message notice wanbond-none' },
				_('No bond is configured, or none is enabled: add one in Settings, with its network interface (protocol "wanbond").')));
		/* The bonds that do not run, and why, as the check of their configuration says. */
		Object.keys(configured).sort().forEach(function(n) {
			var c = configured[n];

			if (bonds[n] || (c.role == 'server' && serverRuns))
				return;
			nodes.push(E('div', { 'class': 'alert-message warning wanbond-not-running', 'data-bond': n }, [
				E('strong', _('Bond %s is not running.').format(n)), ' ',
				!c.ok ? _('Its configuration does not check: %s').format(c.error)
					: c.waiting ? _('It waits for one of its uplinks\' interfaces to come up.')
					: _('Its network interface (protocol "wanbond") is down or missing: see Network \u2192 Interfaces.')
			]));
		});
		names.forEach(function(n) {
			var rates = remember(n, bonds[n], now);

			nodes.push(self.renderBond(n, bonds[n], rates, (checks.bonds || {})[n]));
		});
		dom.content(container, nodes);
		names.forEach(function(n) { self.drawCharts(n, bonds[n], now); });
	},

	render: function(data) {
		var container = E('div', { 'id': 'wanbond-status' });
		var checks = data[1] || {};
		var self = this;

		this.update(container, data[0] || {}, checks);
		poll.add(function() {
			return L.resolveDefault(callStatus(), {}).then(function(status) {
				self.update(container, status, checks);
			});
		}, POLL_SECONDS);

		return E('div', {}, [
			E('h2', _('wanbond')),
			E('div', { 'class': 'cbi-map-descr' },
				_('The bonds of this router\'s uplinks, as the daemon sees them now. The page follows them every second.')),
			container
		]);
	},

	handleSaveApply: null,
	handleSave: null,
	handleReset: null
});
