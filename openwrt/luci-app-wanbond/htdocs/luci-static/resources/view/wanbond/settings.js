'use strict';
'require view';
'require form';
'require rpc';
'require uci';
'require ui';
'require tools.widgets as widgets';

/*
 * wanbond's settings: a form over /etc/config/wanbond (bonds, their
 * uplinks, a server's peers). LuCI's validators catch what they can in the
 * browser; what only the daemon knows (a key it refuses, a setting out of
 * its range) is caught by "wanbondd --check" on the file the UCI makes:
 * the page asks the rpcd plugin's "check" when it loads and after each
 * apply, and shows the check's FILE:LINE error. A bond whose file does not
 * check goes on with the file of before.
 */

var callCheck = rpc.declare({ object: 'wanbond', method: 'check', params: [ 'bond' ], expect: { '': {} } });
var callPublicKey = rpc.declare({ object: 'wanbond', method: 'public_key', params: [ 'bond' ], expect: { '': {} } });
var callGenerateKey = rpc.declare({ object: 'wanbond', method: 'generate_key', params: [ 'bond' ], expect: { '': {} } });

/* The scheduler's rules (docs/scheduler.md): each on unless turned off. */
var RULES = [
	[ 'arrival', _('Each packet on the uplink where it arrives first') ],
	[ 'avoid_blocking', _('Avoid an uplink whose window is full') ],
	[ 'penalise', _('Penalise an uplink that holds everything back') ],
	[ 'penalise_guard', _('Penalise at most once a round trip') ],
	[ 'reinject', _('Reinject a slow uplink\'s data on an idle fast one') ],
	[ 'reinject_on_rwnd', _('Reinject when the receive window is full') ],
	[ 'reinject_on_sndbuf', _('Reinject when the send buffer is full') ],
	[ 'reinject_on_app_limited', _('Reinject when the traffic leaves room') ],
	[ 'measure', _('Measure an uplink whose rate is unknown') ]
];

/* A WireGuard-style key: 32 bytes in base64, 44 characters ending in "=". */
function validateKey(section_id, value) {
	if (!value)
		return true;
	if (!/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(value))
		return _('A key is 44 characters of base64 ending in "=" (wanbondd --pubkey prints one)');
	return true;
}

function validateMark(section_id, value) {
	if (!value)
		return true;
	var n = /^0x[0-9a-fA-F]{1,8}$/.test(value) ? parseInt(value, 16) : (/^[0-9]{1,10}$/.test(value) ? +value : NaN);
	if (!(n >= 1 && n <= 0xffffffff))
		return _('A mark from 1 to 0xffffffff, decimal or 0x hexadecimal');
	return true;
}

/* A DSCP as the daemon reads it: EF, VA, LE, CS0..CS7, AF11..AF43 (any case), or a number 0..63. */
function validateDscp(section_id, value) {
	if (!value || /^(ef|va|le|cs[0-7]|af[1-4][1-3])$/i.test(value) || (/^[0-9]{1,2}$/.test(value) && +value <= 63))
		return true;
	return _('A DSCP name (EF, CS0 to CS7, AF11 to AF43, VA, LE) or a number from 0 to 63');
}

/* A port rule: "udp:PORT", "tcp:PORT-PORT" or "PORT" (both protocols), ports 1 to 65535. */
function validatePortRule(section_id, value) {
	var m = value ? /^(?:(?:udp|tcp):)?([0-9]{1,5})(?:-([0-9]{1,5}))?$/.exec(value) : null;
	var lo = m ? +m[1] : 0, hi = m && m[2] !== undefined ? +m[2] : lo;

	if (!value || (m && lo >= 1 && hi <= 65535 && lo <= hi))
		return true;
	return _('A port rule: udp:PORT, tcp:PORT-PORT or PORT (UDP and TCP), ports from 1 to 65535');
}

function checkErrors(checks) {
	var bonds = (checks && checks.bonds) || {};
	var bad = Object.keys(bonds).filter(function(b) { return !bonds[b].ok; });

	if (checks && checks.error)
		return E('div', { 'class': 'alert-message warning' }, '%s: %s'.format(checks.error, checks.detail || ''));
	if (!bad.length)
		return E('div', { 'class': 'wanbond-check-ok', 'style': 'display:none' });
	return E('div', { 'class': 'alert-message danger wanbond-check-error' }, [
		E('strong', _('Not applied: the configuration does not check (wanbondd --check).')),
		E('ul', bad.map(function(b) { return E('li', [ E('code', bonds[b].error) ]); })),
		E('p', _('Each bond named here runs on its configuration of before until this is fixed.'))
	]);
}

return view.extend({
	load: function() {
		return Promise.all([
			uci.load('wanbond'),
			L.resolveDefault(callCheck(), {})
		]).then(function(data) {
			var bonds = uci.sections('wanbond', 'bond').map(function(s) { return s['.name']; });

			return Promise.all(bonds.map(function(b) { return L.resolveDefault(callPublicKey(b), {}); })).then(function(keys) {
				var pub = {};

				bonds.forEach(function(b, i) { pub[b] = keys[i]; });
				return [ data[1], pub ];
			});
		});
	},

	handleGenerateKey: function(section_id) {
		return new Promise(function(resolve) {
			ui.showModal(_('A new key pair for bond %s?').format(section_id), [
				E('p', _('The server knows this router by its public key. The bond takes the new key when it restarts (Restart bond on the status page): give the server the new public key first, or the tunnel stops then. Every bond that uses this key file gets the new key. The key of before is kept beside it (.old).')),
				E('div', { 'class': 'right' }, [
					E('button', { 'class': 'btn cbi-button', 'click': function() { ui.hideModal(); resolve(); } }, _('Cancel')),
					' ',
					E('button', { 'class': 'btn cbi-button cbi-button-negative', 'click': function() {
						callGenerateKey(section_id).then(function(res) {
							if (res.error) {
								ui.hideModal();
								ui.addNotification(null, E('p', res.error), 'danger');
								return;
							}
							var shown = document.getElementById('wanbond-pubkey-' + section_id);
							if (shown)
								shown.textContent = res.public_key;
							ui.showModal(_('The new public key of bond %s').format(section_id), [
								E('p', _('Copy it to the server (its peer\'s public_key):')),
								E('textarea', { 'readonly': 'readonly', 'rows': 2, 'style': 'width:100%;font-family:monospace' }, res.public_key),
								E('div', { 'class': 'right' }, E('button', { 'class': 'btn cbi-button', 'click': ui.hideModal }, _('Close')))
							]);
						}).finally(resolve);
					} }, _('Generate'))
				])
			]);
		});
	},

	render: function(data) {
		var checks = data[0], pub = data[1];
		var m, s, o;
		var self = this;

		m = new form.Map('wanbond', _('wanbond settings'),
			_('The bonds of this router\'s uplinks into one tunnel, their uplinks, and a server\'s peers. Each bond runs as the network interface of protocol "wanbond" that names it (Network \u2192 Interfaces).'));

		/* ---- bonds ---- */
		s = m.section(form.TypedSection, 'bond', _('Bonds'));
		s.addremove = true;
		s.anonymous = false;
		s.tab('general', _('General'));
		s.tab('tunnel', _('Tunnel'));
		s.tab('scheduler', _('Scheduler'));
		s.tab('classes', _('Traffic classes'));
		s.tab('advanced', _('Advanced'));

		o = s.taboption('general', form.Flag, 'enabled', _('Enabled'));
		o.default = '1';
		o.rmempty = false;

		o = s.taboption('general', form.ListValue, 'role', _('Role'));
		o.value('client', _('client: this router, to a server'));
		o.value('server', _('server: a VPS, for routers'));
		o.default = 'client';

		o = s.taboption('general', form.Value, 'server_address', _('Server address'), _('A literal IPv4 or IPv6 address: no DNS.'));
		o.datatype = 'ipaddr';
		o.depends('role', 'client');
		o.rmempty = false;

		o = s.taboption('general', form.Value, 'server_port', _('Server port'));
		o.datatype = 'port';
		o.placeholder = '51820';
		o.depends('role', 'client');

		o = s.taboption('general', form.Value, 'server_public_key', _('Server public key'), _('"wanbondd --pubkey" on the server prints it.'));
		o.validate = validateKey;
		o.depends('role', 'client');
		o.rmempty = false;

		o = s.taboption('general', form.Value, 'listen_port', _('Listen port'));
		o.datatype = 'port';
		o.placeholder = '51820';
		o.depends('role', 'server');

		o = s.taboption('general', form.Value, 'private_key_file', _('Private key file'));
		o.placeholder = '/etc/wanbond/wanbond.key';
		/* The key pair button reads and makes keys of /etc/wanbond only (the rpcd plugin). */
		o.validate = function(section_id, value) {
			return (!value || /^\/etc\/wanbond\/[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(value))
				? true : _('A file of /etc/wanbond, such as /etc/wanbond/wanbond.key');
		};

		o = s.taboption('general', form.DummyValue, '_public_key', _('Public key'), _('Give it to the other end: the server, or on a server each router.'));
		o.rawhtml = true;
		o.cfgvalue = function(section_id) {
			var k = pub[section_id] || {};
			return E('code', { 'id': 'wanbond-pubkey-' + section_id, 'style': 'user-select:all' },
				k.public_key || (k.error ? '(%s)'.format(k.error) : _('(no key yet)')));
		};

		o = s.taboption('general', form.Button, '_generate', _('Key pair'));
		o.inputtitle = _('Generate a new key pair');
		o.inputstyle = 'action';
		o.onclick = function(ev, section_id) {
			return self.handleGenerateKey(section_id);
		};

		o = s.taboption('tunnel', form.Value, 'tun_name', _('TUN device'), _('Default: wb- and the bond\'s name.'));
		o.depends('role', 'client');
		o.datatype = 'and(maxlength(15),minlength(1))';
		o.validate = function(section_id, value) {
			return (!value || /^[A-Za-z0-9_.-]{1,15}$/.test(value)) ? true : _('1 to 15 of A-Z a-z 0-9 _ . -');
		};

		o = s.taboption('tunnel', form.DynamicList, 'tun_address', _('Tunnel addresses'));
		o.datatype = 'cidr';
		o.depends('role', 'client');

		o = s.taboption('tunnel', form.DynamicList, 'route', _('Routes into the tunnel'), _('Prefixes behind the server.'));
		o.datatype = 'cidr';
		o.depends('role', 'client');

		o = s.taboption('tunnel', form.Value, 'tun_mtu', _('MTU'), _('0 or empty: from the uplinks\' path MTU.'));
		o.depends('role', 'client');
		o.placeholder = '0';
		o.validate = function(section_id, value) {
			return (!value || value == '0' || (/^[0-9]+$/.test(value) && +value >= 576 && +value <= 65468))
				? true : _('0, or 576 to 65468');
		};

		o = s.taboption('scheduler', form.ListValue, 'policy', _('Policy'));
		o.value('default', _('default: each packet where it arrives first'));
		o.value('roundrobin', _('roundrobin: one packet per uplink in turn'));
		o.value('redundant', _('redundant: every packet on every uplink'));
		o.value('first', _('first: the first uplink that is up, the others as failover'));
		o.default = 'default';

		RULES.forEach(function(r) {
			o = s.taboption('scheduler', form.Flag, r[0], r[0], r[1]);
			o.default = '1';
			o.depends('policy', 'default');
		});

		/*
		 * Traffic classes: an option left empty is not written, and the daemon's
		 * default holds. Hidden while the classes are off, the interactive class's
		 * options are kept (retain), not removed: turned on again, they are back.
		 */
		o = s.taboption('classes', form.Flag, 'classes_enabled', _('Traffic classes'), _('Interactive packets (calls, games) go before bulk, and are copied on another uplink. Off: every packet is bulk.'));
		o.default = '1';

		o = s.taboption('classes', form.DynamicList, 'interactive_dscp', _('Interactive DSCPs'), _('Packets marked with one of these are interactive. Empty: EF, CS4, CS5, CS6, AF41, AF42, AF43; a list given replaces them.'));
		o.placeholder = 'EF';
		o.validate = validateDscp;
		o.depends('classes_enabled', '1');
		o.retain = true;

		o = s.taboption('classes', form.DynamicList, 'interactive_ports', _('Interactive ports'), _('Packets from or to one of these ports are interactive. Empty: none.'));
		o.placeholder = 'udp:3478-3481';
		o.validate = validatePortRule;
		o.depends('classes_enabled', '1');
		o.retain = true;

		o = s.taboption('classes', form.ListValue, 'interactive_policy', _('Interactive policy'));
		o.value('', _('default (duplicate)'));
		o.value('duplicate', _('duplicate: each packet on the two uplinks where it arrives first'));
		o.value('redundant', _('redundant: each packet on every uplink'));
		o.value('bonded', _('bonded: as bulk, the bond\'s policy'));
		o.depends('classes_enabled', '1');
		o.retain = true;

		o = s.taboption('classes', form.Flag, 'interactive_ordered', _('Interactive in order'), _('Delivered in order, as bulk. Off: each packet as soon as it arrives.'));
		o.default = '0';
		o.depends('classes_enabled', '1');
		o.retain = true;

		o = s.taboption('classes', form.ListValue, 'interactive_fec', _('Interactive parity (FEC)'), _('auto: parity where the uplinks lose packets, so one lost is rebuilt without a resend.'));
		o.value('', _('default (auto)'));
		o.value('auto');
		o.value('off');
		o.depends('classes_enabled', '1');
		o.retain = true;

		o = s.taboption('classes', form.Flag, 'outer_dscp', _('Outer DSCP'), _('The tunnel\'s packets carry the DSCP of the packet inside, for the uplinks\' own queues. Some networks bleach or mistreat DSCP.'));
		o.default = '0';

		o = s.taboption('advanced', form.Value, 'probe_interval_ms', _('Probe interval (ms)'));
		o.datatype = 'range(10,10000)';
		o.placeholder = '250';

		o = s.taboption('advanced', form.Value, 'uplink_timeout_ms', _('Uplink timeout (ms)'), _('No answer for this long: the uplink is down.'));
		o.datatype = 'range(100,60000)';
		o.placeholder = '1000';

		o = s.taboption('advanced', form.ListValue, 'cipher', _('Cipher'), _('As the server\'s.'));
		o.value('', _('default (chacha20-poly1305)'));
		o.value('chacha20-poly1305');
		o.value('aes-256-gcm');

		o = s.taboption('advanced', form.ListValue, 'congestion_control', _('Congestion control per uplink'));
		o.value('', _('default (bbr)'));
		o.value('bbr');
		o.value('newreno');

		/* ---- uplinks ---- */
		s = m.section(form.GridSection, 'uplink', _('Uplinks'), _('Each uplink is a network interface (Network \u2192 Interfaces): its device, when it is up, carries the uplink\'s tunnel.'));
		s.addremove = true;
		s.anonymous = false;
		s.nodescriptions = true;

		o = s.option(form.Flag, 'enabled', _('Enabled'));
		o.default = '1';
		o.editable = true;

		o = s.option(form.ListValue, 'bond', _('Bond'));
		uci.sections('wanbond', 'bond').forEach(function(b) { o.value(b['.name']); });
		o.rmempty = false;

		o = s.option(widgets.NetworkSelect, 'interface', _('Interface'));
		o.nocreate = true;
		o.rmempty = false;

		o = s.option(form.Value, 'weight', _('Weight'));
		o.datatype = 'range(1,1000)';
		o.placeholder = '1';

		o = s.option(form.Flag, 'backup', _('Backup'), _('Only while no other uplink works.'));
		o.default = '0';

		o = s.option(form.Value, 'fwmark', _('Mark'), _('Keep clear of mwan3\'s 0x3f00.'));
		o.validate = validateMark;
		o.modalonly = true;

		o = s.option(form.Value, 'table', _('Routing table'), _('With a mark: "fwmark M lookup TABLE".'));
		o.datatype = 'or(range(1,252),range(256,4294967295))';
		o.depends({ fwmark: /.+/ });
		o.modalonly = true;

		/* ---- a server's peers ---- */
		s = m.section(form.GridSection, 'peer', _('Peers (on a server)'), _('The routers a server bond accepts.'));
		s.addremove = true;
		s.anonymous = false;
		s.nodescriptions = true;

		o = s.option(form.ListValue, 'bond', _('Bond'));
		uci.sections('wanbond', 'bond').forEach(function(b) { if (b.role == 'server') o.value(b['.name']); });

		o = s.option(form.Value, 'public_key', _('Public key'));
		o.validate = validateKey;
		o.rmempty = false;

		o = s.option(form.DynamicList, 'tun_address', _('Tunnel addresses'));
		o.datatype = 'cidr';

		o = s.option(form.DynamicList, 'route', _('Routes'));
		o.datatype = 'cidr';
		o.modalonly = true;

		/* The check's verdict above the form, again after each apply. */
		var verdict = E('div', { 'id': 'wanbond-check' }, checkErrors(checks));
		document.addEventListener('uci-applied', function() {
			L.resolveDefault(callCheck(), {}).then(function(c) {
				verdict.replaceChildren(checkErrors(c));
			});
		});

		return m.render().then(function(node) {
			node.insertBefore(verdict, node.firstChild);
			return node;
		});
	}
});
