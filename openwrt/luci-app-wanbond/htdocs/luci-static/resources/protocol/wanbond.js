'use strict';
'require form';
'require network';
'require uci';

/*
 * The netifd protocol "wanbond" (/lib/netifd/proto/wanbond.sh) in LuCI's
 * Network -> Interfaces: an interface that runs a bond of
 * /etc/config/wanbond. Like a tunnel's, its device (the bond's TUN device)
 * exists only while the interface is up.
 */

return network.registerProtocol('wanbond', {
	getI18n: function() {
		return _('wanbond bond');
	},

	getIfname: function() {
		return this._ubus('l3_device') || null;
	},

	getPackageName: function() {
		return 'wanbond';
	},

	isFloating: function() {
		return true;
	},

	isVirtual: function() {
		return true;
	},

	getDevices: function() {
		return null;
	},

	containsDevice: function(ifname) {
		return (network.getIfnameOf(ifname) == this.getIfname());
	},

	renderFormOptions: function(s) {
		var o = s.taboption('general', form.ListValue, 'bond', _('Bond'),
			_('A bond of /etc/config/wanbond (Services \u2192 wanbond \u2192 Settings): its daemon runs while this interface is up.'));

		o.rmempty = false;
		o.load = function(section_id) {
			/* Without the wanbond ACL the list is empty, the form still there. */
			return L.resolveDefault(uci.load('wanbond'), null).then(L.bind(function() {
				uci.sections('wanbond', 'bond').forEach(L.bind(function(b) { this.value(b['.name']); }, this));
				return form.ListValue.prototype.load.apply(this, [ section_id ]);
			}, this));
		};
	}
});
