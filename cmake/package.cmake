# SPDX-License-Identifier: MIT
# The Debian package (CPack's DEB generator; scripts/package.sh drives it): Depends computed by
# dpkg-shlibdeps from the libraries the binary links, Recommends for the tools iotape is
# checked against and works beside, and for the ffmpeg program and the font `iotape movie`
# encodes and draws its frames with.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME iotape)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT
	"iotape maintainers <maintainers@users.noreply.a-seed-9a4b80c5.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"capture, replay and analyze storage IO: block traces and NFS/RPC packets")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "iotape traces block devices (blktrace format) and NFS/ONC-RPC packets while a
 command runs, replays the block workload against another kernel, filesystem
 or device with io_uring, and analyzes runs: idle gaps, seeks, latency
 percentiles as btt computes them, throughput, NFS response times as tshark
 computes them, HTML reports and statistical comparisons across runs.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "blktrace, tshark, fio, ffmpeg, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Policy wants a changelog in every package: with -DIOTAPE_DEB_CHANGELOG=ON (scripts/package.sh,
# which builds from a `git archive` tarball) one entry for the commit, dated as the commit, from
# what `git archive` wrote into cmake/commit.txt.
option(IOTAPE_DEB_CHANGELOG "install a Debian changelog for the commit (sources from git archive)")
if(IOTAPE_DEB_CHANGELOG)
	file(READ ${CMAKE_SOURCE_DIR}/cmake/commit.txt line)
	if(NOT line MATCHES "^([0-9a-f]+) [0-9-]+ ([^\n]+)")
		message(FATAL_ERROR "IOTAPE_DEB_CHANGELOG: cmake/commit.txt names no commit; "
			"build from a git archive (scripts/package.sh)")
	endif()
	string(SUBSTRING ${CMAKE_MATCH_1} 0 12 commit)
	file(WRITE ${CMAKE_BINARY_DIR}/changelog.Debian
		"iotape (${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}) unstable; urgency=medium\n\n"
		"  * Built from commit ${commit}; the history is the project's git log.\n\n"
		" -- ${CPACK_PACKAGE_CONTACT}  ${CMAKE_MATCH_2}\n")
	execute_process(COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/changelog.Debian COMMAND_ERROR_IS_FATAL ANY)
	install(FILES ${CMAKE_BINARY_DIR}/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()
include(CPack)
