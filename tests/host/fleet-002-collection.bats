#!/usr/bin/env bats
# The Ansible collection as a collection: its role called by its full
# name, abpath.fleet.abpath; the role's variables specified in
# meta/argument_specs.yml, which ansible-doc reads and Ansible checks when
# the role runs; and ansible-test sanity, offline.  ansible-test's
# runtime-metadata, yamllint, pylint and validate-modules tests install
# their own venv from the network, so they are left out here: ansible-lint's
# production profile (fleet-001-ansible.bats) lints the YAML, and the
# argument specs are checked below by ansible-doc and by a run.

load cli-helper

ANS=$TOP/ansible

setup() {
	command -v ansible-playbook >/dev/null && command -v ansible-doc >/dev/null &&
		command -v ansible-test >/dev/null ||
		fail "no ansible-playbook, ansible-doc or ansible-test: apt-get install ansible (tests/deps.sh host)"
	export ANSIBLE_CONFIG=$ANS/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
	export ANSIBLE_LOCAL_TEMP=$BATS_TEST_TMPDIR/ansible-tmp
	export ANSIBLE_REMOTE_TEMP=$BATS_TEST_TMPDIR/ansible-remote-tmp
	export ANSIBLE_RETRY_FILES_ENABLED=0 NO_COLOR=1
}

@test "the playbooks call the role by its full name only, and ansible.cfg finds it there" {
	run -1 grep -rnE '(name|role): *abpath *$' "$ANS/playbooks"
	assert_output ''
	run -0 grep -rhoE '(name|role): *abpath\.fleet\.abpath$' "$ANS/playbooks"
	assert_equal "${#lines[@]}" 3
	run -1 grep -n '^roles_path' "$ANS/ansible.cfg"
	assert_output ''
	# The link is to the collection itself.
	assert_equal "$(realpath "$ANS/collections/ansible_collections/abpath/fleet")" "$(realpath "$ANS")"
}

@test "ansible-doc shows the role's three entry points, and every default of defaults/main.yml is specified with its value" {
	local doc=$BATS_TEST_TMPDIR/doc.json
	ansible-doc -t role -j abpath.fleet.abpath >"$doc"
	run -0 jq -r '.["abpath.fleet.abpath"].entry_points | keys | join(" ")' "$doc"
	assert_output 'bench main restore'
	# Each variable's spec: the same default as defaults/main.yml, in
	# every entry point that names it, and each default in one at least.
	run -0 python3 - "$ANS/roles/abpath/defaults/main.yml" "$doc" <<-'EOF'
		import json, sys, yaml
		defaults = yaml.safe_load(open(sys.argv[1]))
		eps = json.load(open(sys.argv[2]))["abpath.fleet.abpath"]["entry_points"]
		seen = set()
		for ep, spec in eps.items():
		    for name, opt in spec["options"].items():
		        seen.add(name)
		        if name not in defaults:
		            print("%s: %s is not in defaults/main.yml" % (ep, name))
		        elif opt.get("default") != defaults[name]:
		            print("%s: %s default %r, defaults/main.yml %r"
		                  % (ep, name, opt.get("default"), defaults[name]))
		for name in sorted(set(defaults) - seen):
		    print("%s is in no entry point's options" % name)
	EOF
	assert_output ''
}

@test "a variable of the wrong type fails the role's argument check, before abpath runs" {
	local ran=$BATS_TEST_TMPDIR/ran
	printf '#!/bin/sh\ntouch %s\n' "$ran" >"$BATS_TEST_TMPDIR/abpath"
	chmod +x "$BATS_TEST_TMPDIR/abpath"
	run -2 ansible-playbook -i localhost, -c local "$ANS/playbooks/bench.yml" \
		-e abpath_bench_runs=lots -e "abpath_cli=$BATS_TEST_TMPDIR/abpath" \
		-e "abpath_results_dir=$BATS_TEST_TMPDIR/results"
	assert_output --partial "Validating arguments against arg spec 'bench'"
	assert_output --partial "argument 'abpath_bench_runs' is of type <class 'str'> and we were unable to convert to int"
	[[ ! -e $ran ]] || fail "abpath ran despite the failed argument check"
	[[ ! -e $BATS_TEST_TMPDIR/results ]] || fail "a result was fetched: $(ls "$BATS_TEST_TMPDIR/results")"
	run -2 ansible-playbook -i localhost, -c local "$ANS/playbooks/restore.yml" \
		-e abpath_bench_timeout_s=soon -e "abpath_cli=$BATS_TEST_TMPDIR/abpath"
	assert_output --partial "argument 'abpath_bench_timeout_s' is of type <class 'str'>"
}

@test "ansible-test sanity passes every test that runs offline" {
	# ansible-test wants the collection under ansible_collections/NS/NAME
	# by its real path, and git's files: a copy, without the link.
	local col=$BATS_TEST_TMPDIR/ansible_collections/abpath/fleet
	mkdir -p "$col"
	(cd "$TOP" && git ls-files ansible | grep -v '^ansible/collections/' |
		sed 's|^ansible/||' | tar -C ansible -cf - -T -) | tar -C "$col" -xf -
	[[ -f $col/roles/abpath/meta/argument_specs.yml ]] || fail "the copy has no argument_specs.yml"
	cd "$col"
	run -0 env HOME="$BATS_TEST_TMPDIR" ansible-test sanity --python "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
		--skip-test runtime-metadata --skip-test yamllint --skip-test pylint --skip-test validate-modules
	refute_output --partial 'ERROR'
	assert_line --partial 'Running sanity test "ansible-doc"'
	assert_line --partial 'Running sanity test "shebang"'
}
